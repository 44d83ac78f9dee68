from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.follow_status import FollowStatus, check_follow_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="Follow")


@_attrs_define
class Follow:
    """A user's follow of a business.

    Attributes:
        business_account_id (UUID):
        marketing_opt_in (bool):
        status (FollowStatus): A follow's status.
        user_id (UUID):
        followed_at (datetime.datetime | None | Unset):
        updated_at (datetime.datetime | None | Unset):
    """

    business_account_id: UUID
    marketing_opt_in: bool
    status: FollowStatus
    user_id: UUID
    followed_at: datetime.datetime | None | Unset = UNSET
    updated_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        business_account_id = str(self.business_account_id)

        marketing_opt_in = self.marketing_opt_in

        status: str = self.status

        user_id = str(self.user_id)

        followed_at: None | str | Unset
        if isinstance(self.followed_at, Unset):
            followed_at = UNSET
        elif isinstance(self.followed_at, datetime.datetime):
            followed_at = self.followed_at.isoformat()
        else:
            followed_at = self.followed_at

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        elif isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "business_account_id": business_account_id,
                "marketing_opt_in": marketing_opt_in,
                "status": status,
                "user_id": user_id,
            }
        )
        if followed_at is not UNSET:
            field_dict["followed_at"] = followed_at
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        business_account_id = UUID(d.pop("business_account_id"))

        marketing_opt_in = d.pop("marketing_opt_in")

        status = check_follow_status(d.pop("status"))

        user_id = UUID(d.pop("user_id"))

        def _parse_followed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                followed_at_type_0 = datetime.datetime.fromisoformat(data)

                return followed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        followed_at = _parse_followed_at(d.pop("followed_at", UNSET))

        def _parse_updated_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))

        follow = cls(
            business_account_id=business_account_id,
            marketing_opt_in=marketing_opt_in,
            status=status,
            user_id=user_id,
            followed_at=followed_at,
            updated_at=updated_at,
        )

        follow.additional_properties = d
        return follow

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
