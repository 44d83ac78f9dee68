from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="LookupBody")


@_attrs_define
class LookupBody:
    """
    Attributes:
        phone_numbers (list[str]): Numbers the business already holds, 1 to 100. Example: ['+14155550123'].
    """

    phone_numbers: list[str]

    def to_dict(self) -> dict[str, Any]:
        phone_numbers = self.phone_numbers

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "phone_numbers": phone_numbers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        phone_numbers = cast(list[str], d.pop("phone_numbers"))

        lookup_body = cls(
            phone_numbers=phone_numbers,
        )

        return lookup_body
