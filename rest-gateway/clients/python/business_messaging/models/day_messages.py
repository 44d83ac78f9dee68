from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DayMessages")


@_attrs_define
class DayMessages:
    """Messages accepted on one day.

    Attributes:
        authentication (int):
        marketing (int):
        service (int):
        total (int):
        utility (int):
    """

    authentication: int
    marketing: int
    service: int
    total: int
    utility: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        authentication = self.authentication

        marketing = self.marketing

        service = self.service

        total = self.total

        utility = self.utility

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "authentication": authentication,
                "marketing": marketing,
                "service": service,
                "total": total,
                "utility": utility,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        authentication = d.pop("authentication")

        marketing = d.pop("marketing")

        service = d.pop("service")

        total = d.pop("total")

        utility = d.pop("utility")

        day_messages = cls(
            authentication=authentication,
            marketing=marketing,
            service=service,
            total=total,
            utility=utility,
        )

        day_messages.additional_properties = d
        return day_messages

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
