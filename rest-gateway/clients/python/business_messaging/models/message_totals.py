from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.message_totals_by_category import MessageTotalsByCategory


T = TypeVar("T", bound="MessageTotals")


@_attrs_define
class MessageTotals:
    """Kept messages: `total` counts every status, `failed` excludes `canceled`.

    Attributes:
        accepted (int):
        by_category (MessageTotalsByCategory):  Example: {'authentication': 0, 'marketing': 1, 'service': 0, 'utility':
            3}.
        canceled (int):
        delivered (int):
        failed (int):
        scheduled (int):
        total (int):
    """

    accepted: int
    by_category: MessageTotalsByCategory
    canceled: int
    delivered: int
    failed: int
    scheduled: int
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        accepted = self.accepted

        by_category = self.by_category.to_dict()

        canceled = self.canceled

        delivered = self.delivered

        failed = self.failed

        scheduled = self.scheduled

        total = self.total

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "accepted": accepted,
                "by_category": by_category,
                "canceled": canceled,
                "delivered": delivered,
                "failed": failed,
                "scheduled": scheduled,
                "total": total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_totals_by_category import (
            MessageTotalsByCategory,  # noqa: PLC0415
        )

        d = dict(src_dict)
        accepted = d.pop("accepted")

        by_category = MessageTotalsByCategory.from_dict(d.pop("by_category"))

        canceled = d.pop("canceled")

        delivered = d.pop("delivered")

        failed = d.pop("failed")

        scheduled = d.pop("scheduled")

        total = d.pop("total")

        message_totals = cls(
            accepted=accepted,
            by_category=by_category,
            canceled=canceled,
            delivered=delivered,
            failed=failed,
            scheduled=scheduled,
            total=total,
        )

        message_totals.additional_properties = d
        return message_totals

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
