from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.assignable_role import AssignableRole, check_assignable_role

T = TypeVar("T", bound="AddMemberBody")


@_attrs_define
class AddMemberBody:
    """
    Attributes:
        phone_number (str): The phone number of an existing account. Example: +14155550123.
        role (AssignableRole): A role that can be given (`owner` cannot).
    """

    phone_number: str
    role: AssignableRole

    def to_dict(self) -> dict[str, Any]:
        phone_number = self.phone_number

        role: str = self.role

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "phone_number": phone_number,
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        phone_number = d.pop("phone_number")

        role = check_assignable_role(d.pop("role"))

        add_member_body = cls(
            phone_number=phone_number,
            role=role,
        )

        return add_member_body
