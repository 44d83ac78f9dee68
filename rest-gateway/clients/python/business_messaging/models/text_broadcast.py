from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.broadcast_category import BroadcastCategory, check_broadcast_category
from ..types import UNSET, Unset

T = TypeVar("T", bound="TextBroadcast")


@_attrs_define
class TextBroadcast:
    """A broadcast of plain text: `utility` (a body is required), or `marketing`.

    Attributes:
        body (str): 1 to 4096 characters. Example: We open at 10:00 on weekdays in December..
        category (BroadcastCategory): What a broadcast may send.
        name (str): 1 to 100 characters, shown in the console. Example: December opening hours.
        max_per_second (int | None | Unset): The most messages per second, 1 to half of `BUSINESS_SENDS_PER_SECOND` (the
            default). Example: 100.
        message_content (None | Unset):
        send_at (datetime.datetime | None | Unset): When to start (RFC 3339, at most 30 days ahead; past, present or
            absent means now). Until
            then the broadcast is `scheduled`. Example: 2026-12-01T09:00:00Z.
    """

    body: str
    category: BroadcastCategory
    name: str
    max_per_second: int | None | Unset = UNSET
    message_content: None | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        category: str = self.category

        name = self.name

        max_per_second: int | None | Unset
        if isinstance(self.max_per_second, Unset):
            max_per_second = UNSET
        else:
            max_per_second = self.max_per_second

        message_content: None | Unset
        if isinstance(self.message_content, Unset):
            message_content = UNSET
        else:
            message_content = self.message_content

        send_at: None | str | Unset
        if isinstance(self.send_at, Unset):
            send_at = UNSET
        elif isinstance(self.send_at, datetime.datetime):
            send_at = self.send_at.isoformat()
        else:
            send_at = self.send_at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "body": body,
                "category": category,
                "name": name,
            }
        )
        if max_per_second is not UNSET:
            field_dict["max_per_second"] = max_per_second
        if message_content is not UNSET:
            field_dict["message_content"] = message_content
        if send_at is not UNSET:
            field_dict["send_at"] = send_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        body = d.pop("body")

        category = check_broadcast_category(d.pop("category"))

        name = d.pop("name")

        def _parse_max_per_second(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_per_second = _parse_max_per_second(d.pop("max_per_second", UNSET))

        def _parse_message_content(data: object) -> None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | Unset, data)

        message_content = _parse_message_content(d.pop("message_content", UNSET))

        def _parse_send_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                send_at_type_0 = datetime.datetime.fromisoformat(data)

                return send_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        send_at = _parse_send_at(d.pop("send_at", UNSET))

        text_broadcast = cls(
            body=body,
            category=category,
            name=name,
            max_per_second=max_per_second,
            message_content=message_content,
            send_at=send_at,
        )

        return text_broadcast
