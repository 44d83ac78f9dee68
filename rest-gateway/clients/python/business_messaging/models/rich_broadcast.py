from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.marketing_category import MarketingCategory, check_marketing_category
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.marketing_content import MarketingContent


T = TypeVar("T", bound="RichBroadcast")


@_attrs_define
class RichBroadcast:
    """A `marketing` broadcast with structured content.

    Attributes:
        category (MarketingCategory):
        message_content (MarketingContent):
        name (str): 1 to 100 characters, shown in the console. Example: Winter sale.
        body (None | Unset):
        max_per_second (int | None | Unset): The most messages per second, 1 to half of `BUSINESS_SENDS_PER_SECOND` (the
            default). Example: 100.
        send_at (datetime.datetime | None | Unset): When to start (RFC 3339, at most 30 days ahead; past, present or
            absent means now). Example: 2026-12-01T09:00:00Z.
    """

    category: MarketingCategory
    message_content: MarketingContent
    name: str
    body: None | Unset = UNSET
    max_per_second: int | None | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        message_content = self.message_content.to_dict()

        name = self.name

        body: None | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        else:
            body = self.body

        max_per_second: int | None | Unset
        if isinstance(self.max_per_second, Unset):
            max_per_second = UNSET
        else:
            max_per_second = self.max_per_second

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
                "category": category,
                "message_content": message_content,
                "name": name,
            }
        )
        if body is not UNSET:
            field_dict["body"] = body
        if max_per_second is not UNSET:
            field_dict["max_per_second"] = max_per_second
        if send_at is not UNSET:
            field_dict["send_at"] = send_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.marketing_content import MarketingContent  # noqa: PLC0415

        d = dict(src_dict)
        category = check_marketing_category(d.pop("category"))

        message_content = MarketingContent.from_dict(d.pop("message_content"))

        name = d.pop("name")

        def _parse_body(data: object) -> None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

        def _parse_max_per_second(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_per_second = _parse_max_per_second(d.pop("max_per_second", UNSET))

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

        rich_broadcast = cls(
            category=category,
            message_content=message_content,
            name=name,
            body=body,
            max_per_second=max_per_second,
            send_at=send_at,
        )

        return rich_broadcast
