from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.marketing_category import MarketingCategory, check_marketing_category
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.marketing_content import MarketingContent


T = TypeVar("T", bound="MarketingRichMessage")


@_attrs_define
class MarketingRichMessage:
    """A promotion to a follower who opted in, as structured content.

    Attributes:
        category (MarketingCategory):
        message_content (MarketingContent):
        to (str):  Example: +14155550124.
        body (None | Unset):
        expires_at (datetime.datetime | None | Unset): Never handed out after this (RFC 3339; after `send_at`, or after
            now without it; at most
            30 days ahead): it then fails with `failure_reason` `expired`.
        send_at (datetime.datetime | None | Unset): When to hand it out (RFC 3339, at most 30 days ahead; past or
            present means now). Until
            then the message is `scheduled`, and consent and the business are checked again then. Example:
            2026-12-01T09:00:00Z.
    """

    category: MarketingCategory
    message_content: MarketingContent
    to: str
    body: None | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        message_content = self.message_content.to_dict()

        to = self.to

        body: None | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        else:
            body = self.body

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

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
                "to": to,
            }
        )
        if body is not UNSET:
            field_dict["body"] = body
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if send_at is not UNSET:
            field_dict["send_at"] = send_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.marketing_content import MarketingContent  # noqa: PLC0415

        d = dict(src_dict)
        category = check_marketing_category(d.pop("category"))

        message_content = MarketingContent.from_dict(d.pop("message_content"))

        to = d.pop("to")

        def _parse_body(data: object) -> None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

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

        marketing_rich_message = cls(
            category=category,
            message_content=message_content,
            to=to,
            body=body,
            expires_at=expires_at,
            send_at=send_at,
        )

        return marketing_rich_message
