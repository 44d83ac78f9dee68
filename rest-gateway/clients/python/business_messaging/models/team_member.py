from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.role import Role, check_role

T = TypeVar("T", bound="TeamMember")


@_attrs_define
class TeamMember:
    """
    Attributes:
        added_at (datetime.datetime):
        phone_number (str):
        role (Role): A team role.
        user_id (UUID):
    """

    added_at: datetime.datetime
    phone_number: str
    role: Role
    user_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        added_at = self.added_at.isoformat()

        phone_number = self.phone_number

        role: str = self.role

        user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "added_at": added_at,
                "phone_number": phone_number,
                "role": role,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        added_at = datetime.datetime.fromisoformat(d.pop("added_at"))

        phone_number = d.pop("phone_number")

        role = check_role(d.pop("role"))

        user_id = UUID(d.pop("user_id"))

        team_member = cls(
            added_at=added_at,
            phone_number=phone_number,
            role=role,
            user_id=user_id,
        )

        team_member.additional_properties = d
        return team_member

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
