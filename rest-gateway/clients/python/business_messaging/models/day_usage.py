from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.day_messages import DayMessages


T = TypeVar("T", bound="DayUsage")


@_attrs_define
class DayUsage:
    """One UTC day: messages count on the day they were accepted, outcomes on theirs, deliveries on
    the day they settled; `follows` are `follow.created`, `unfollows` `follow.deleted`.

        Attributes:
            date (datetime.date):  Example: 2026-11-24.
            delivered (int):
            failed (int):
            follows (int):
            messages (DayMessages): Messages accepted on one day.
            received (int): Messages users wrote to the business that day.
            unfollows (int):
            webhooks_failed (int):
            webhooks_succeeded (int):
    """

    date: datetime.date
    delivered: int
    failed: int
    follows: int
    messages: DayMessages
    received: int
    unfollows: int
    webhooks_failed: int
    webhooks_succeeded: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        date = self.date.isoformat()

        delivered = self.delivered

        failed = self.failed

        follows = self.follows

        messages = self.messages.to_dict()

        received = self.received

        unfollows = self.unfollows

        webhooks_failed = self.webhooks_failed

        webhooks_succeeded = self.webhooks_succeeded

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "date": date,
                "delivered": delivered,
                "failed": failed,
                "follows": follows,
                "messages": messages,
                "received": received,
                "unfollows": unfollows,
                "webhooks_failed": webhooks_failed,
                "webhooks_succeeded": webhooks_succeeded,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.day_messages import DayMessages  # noqa: PLC0415

        d = dict(src_dict)
        date = datetime.date.fromisoformat(d.pop("date"))

        delivered = d.pop("delivered")

        failed = d.pop("failed")

        follows = d.pop("follows")

        messages = DayMessages.from_dict(d.pop("messages"))

        received = d.pop("received")

        unfollows = d.pop("unfollows")

        webhooks_failed = d.pop("webhooks_failed")

        webhooks_succeeded = d.pop("webhooks_succeeded")

        day_usage = cls(
            date=date,
            delivered=delivered,
            failed=failed,
            follows=follows,
            messages=messages,
            received=received,
            unfollows=unfollows,
            webhooks_failed=webhooks_failed,
            webhooks_succeeded=webhooks_succeeded,
        )

        day_usage.additional_properties = d
        return day_usage

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
