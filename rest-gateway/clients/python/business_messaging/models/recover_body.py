from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="RecoverBody")


@_attrs_define
class RecoverBody:
    """
    Attributes:
        since (datetime.datetime): Re-queue the failed deliveries created at or after this time (at most 7 days back, or
            the deliveries' retention when the operator set it shorter). Example: 2026-11-23T09:00:00Z.
    """

    since: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        since = self.since.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "since": since,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        since = datetime.datetime.fromisoformat(d.pop("since"))

        recover_body = cls(
            since=since,
        )

        return recover_body
