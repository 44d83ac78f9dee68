from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.business_mode import BusinessMode, check_business_mode
from ..models.business_status import BusinessStatus, check_business_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="BusinessAccount")


@_attrs_define
class BusinessAccount:
    """A business account.

    Attributes:
        business_name (str):
        created_at (datetime.datetime):
        mode (BusinessMode): A business account's mode: a sandbox business cannot send; an operator makes it live.
        phone_number (str): The owner's phone number (E.164).
        status (BusinessStatus): A business account's status.
        user_id (UUID): The account id: its owner's user id.
        category (None | str | Unset):
        website_url (None | str | Unset):
    """

    business_name: str
    created_at: datetime.datetime
    mode: BusinessMode
    phone_number: str
    status: BusinessStatus
    user_id: UUID
    category: None | str | Unset = UNSET
    website_url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        business_name = self.business_name

        created_at = self.created_at.isoformat()

        mode: str = self.mode

        phone_number = self.phone_number

        status: str = self.status

        user_id = str(self.user_id)

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        else:
            category = self.category

        website_url: None | str | Unset
        if isinstance(self.website_url, Unset):
            website_url = UNSET
        else:
            website_url = self.website_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "business_name": business_name,
                "created_at": created_at,
                "mode": mode,
                "phone_number": phone_number,
                "status": status,
                "user_id": user_id,
            }
        )
        if category is not UNSET:
            field_dict["category"] = category
        if website_url is not UNSET:
            field_dict["website_url"] = website_url

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        business_name = d.pop("business_name")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        mode = check_business_mode(d.pop("mode"))

        phone_number = d.pop("phone_number")

        status = check_business_status(d.pop("status"))

        user_id = UUID(d.pop("user_id"))

        def _parse_category(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        def _parse_website_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        website_url = _parse_website_url(d.pop("website_url", UNSET))

        business_account = cls(
            business_name=business_name,
            created_at=created_at,
            mode=mode,
            phone_number=phone_number,
            status=status,
            user_id=user_id,
            category=category,
            website_url=website_url,
        )

        business_account.additional_properties = d
        return business_account

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
