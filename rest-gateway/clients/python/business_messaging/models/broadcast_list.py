from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.broadcast import Broadcast


T = TypeVar("T", bound="BroadcastList")


@_attrs_define
class BroadcastList:
    """
    Attributes:
        broadcasts (list[Broadcast]):
        has_more (bool): Whether older broadcasts follow: ask again with `starting_after` = the last `id`.
    """

    broadcasts: list[Broadcast]
    has_more: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        broadcasts = []
        for broadcasts_item_data in self.broadcasts:
            broadcasts_item = broadcasts_item_data.to_dict()
            broadcasts.append(broadcasts_item)

        has_more = self.has_more

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "broadcasts": broadcasts,
                "has_more": has_more,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.broadcast import Broadcast  # noqa: PLC0415

        d = dict(src_dict)
        broadcasts = []
        _broadcasts = d.pop("broadcasts")
        for broadcasts_item_data in _broadcasts:
            broadcasts_item = Broadcast.from_dict(broadcasts_item_data)

            broadcasts.append(broadcasts_item)

        has_more = d.pop("has_more")

        broadcast_list = cls(
            broadcasts=broadcasts,
            has_more=has_more,
        )

        broadcast_list.additional_properties = d
        return broadcast_list

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
