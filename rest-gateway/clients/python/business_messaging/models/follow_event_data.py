from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.follow_status import FollowStatus, check_follow_status

T = TypeVar("T", bound="FollowEventData")


@_attrs_define
class FollowEventData:
    """`follow.created`, `follow.updated`, `follow.deleted`: a follow became active (a first
    follow or a re-follow), its marketing consent changed while active, or it became
    `unfollowed`.

        Attributes:
            changed_at (datetime.datetime):
            marketing_opt_in (bool):
            status (FollowStatus): A follow's status.
            user_id (UUID): The follower (phone numbers are never shown).
    """

    changed_at: datetime.datetime
    marketing_opt_in: bool
    status: FollowStatus
    user_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        changed_at = self.changed_at.isoformat()

        marketing_opt_in = self.marketing_opt_in

        status: str = self.status

        user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "changed_at": changed_at,
                "marketing_opt_in": marketing_opt_in,
                "status": status,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        changed_at = datetime.datetime.fromisoformat(d.pop("changed_at"))

        marketing_opt_in = d.pop("marketing_opt_in")

        status = check_follow_status(d.pop("status"))

        user_id = UUID(d.pop("user_id"))

        follow_event_data = cls(
            changed_at=changed_at,
            marketing_opt_in=marketing_opt_in,
            status=status,
            user_id=user_id,
        )

        follow_event_data.additional_properties = d
        return follow_event_data

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
