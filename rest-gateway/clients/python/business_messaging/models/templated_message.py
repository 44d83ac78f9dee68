from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.broadcast_category import BroadcastCategory, check_broadcast_category
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.template_use import TemplateUse


T = TypeVar("T", bound="TemplatedMessage")


@_attrs_define
class TemplatedMessage:
    """A utility or marketing message whose content a template of the business supplies.

    Attributes:
        category (BroadcastCategory): What a broadcast may send.
        template (TemplateUse): A template a send names: rendered when the recipient is known, with the explicit
            `locale`,
            else the recipient's own language when they follow the business, else the template's
            default (each by RFC 4647 lookup: `pt-BR`, then `pt`). A replay with the same
            Idempotency-Key answers the original; the template and its variables are part of the key's
            content.
        to (str):  Example: +14155550124.
        body (None | Unset):
        expires_at (datetime.datetime | None | Unset):
        message_content (None | Unset):
        send_at (datetime.datetime | None | Unset): When to hand it out (RFC 3339, at most 30 days ahead); the template
            is rendered now. Example: 2026-12-01T09:00:00Z.
    """

    category: BroadcastCategory
    template: TemplateUse
    to: str
    body: None | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    message_content: None | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        template = self.template.to_dict()

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
                "category": category,
                "template": template,
                "to": to,
            }
        )
        if body is not UNSET:
            field_dict["body"] = body
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if message_content is not UNSET:
            field_dict["message_content"] = message_content
        if send_at is not UNSET:
            field_dict["send_at"] = send_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template_use import TemplateUse  # noqa: PLC0415

        d = dict(src_dict)
        category = check_broadcast_category(d.pop("category"))

        template = TemplateUse.from_dict(d.pop("template"))

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

        templated_message = cls(
            category=category,
            template=template,
            to=to,
            body=body,
            expires_at=expires_at,
            message_content=message_content,
            send_at=send_at,
        )

        return templated_message
