from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.utility_category import UtilityCategory, check_utility_category
from ..types import UNSET, Unset

T = TypeVar("T", bound="UtilityMessage")


@_attrs_define
class UtilityMessage:
    """A transactional notice: plain text.

    Attributes:
        body (str): 1 to 4096 characters. Example: Your order has shipped..
        category (UtilityCategory):
        to (str):  Example: +14155550124.
        expires_at (datetime.datetime | None | Unset): Never handed out after this (RFC 3339; after `send_at`, or after
            now without it; at most
            30 days ahead): it then fails with `failure_reason` `expired`.
        message_content (None | Unset):
        send_at (datetime.datetime | None | Unset): When to hand it out (RFC 3339, at most 30 days ahead; past or
            present means now). Until
            then the message is `scheduled`, and consent and the business are checked again then. Example:
            2026-12-01T09:00:00Z.
    """

    body: str
    category: UtilityCategory
    to: str
    expires_at: datetime.datetime | None | Unset = UNSET
    message_content: None | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        category: str = self.category

        to = self.to

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

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
                "to": to,
            }
        )
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if message_content is not UNSET:
            field_dict["message_content"] = message_content
        if send_at is not UNSET:
            field_dict["send_at"] = send_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        body = d.pop("body")

        category = check_utility_category(d.pop("category"))

        to = d.pop("to")

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

        utility_message = cls(
            body=body,
            category=category,
            to=to,
            expires_at=expires_at,
            message_content=message_content,
            send_at=send_at,
        )

        return utility_message
