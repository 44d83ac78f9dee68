from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="WebhookDay")


@_attrs_define
class WebhookDay:
    """One UTC day of an endpoint's attempts.

    Attributes:
        attempts (int):
        date (datetime.date):  Example: 2026-11-30.
        exhausted (int): Deliveries that ended failed that day (their last attempt failed, or a permanent 4xx).
        failed_attempts (int): Not answered 2xx (timeouts and connection errors included).
        succeeded_attempts (int): Answered 2xx.
    """

    attempts: int
    date: datetime.date
    exhausted: int
    failed_attempts: int
    succeeded_attempts: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        date = self.date.isoformat()

        exhausted = self.exhausted

        failed_attempts = self.failed_attempts

        succeeded_attempts = self.succeeded_attempts

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "date": date,
                "exhausted": exhausted,
                "failed_attempts": failed_attempts,
                "succeeded_attempts": succeeded_attempts,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        date = datetime.date.fromisoformat(d.pop("date"))

        exhausted = d.pop("exhausted")

        failed_attempts = d.pop("failed_attempts")

        succeeded_attempts = d.pop("succeeded_attempts")

        webhook_day = cls(
            attempts=attempts,
            date=date,
            exhausted=exhausted,
            failed_attempts=failed_attempts,
            succeeded_attempts=succeeded_attempts,
        )

        webhook_day.additional_properties = d
        return webhook_day

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
