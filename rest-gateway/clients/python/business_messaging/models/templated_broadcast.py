from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.broadcast_category import BroadcastCategory, check_broadcast_category
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.template_use import TemplateUse


T = TypeVar("T", bound="TemplatedBroadcast")


@_attrs_define
class TemplatedBroadcast:
    """A broadcast whose content a template of the business supplies: one set of variables, each
    recipient's own variant (their language when the template has it, else the default, unless
    `template.locale` names one). The version found at creation is the one every message
    renders.

        Attributes:
            category (BroadcastCategory): What a broadcast may send.
            name (str): 1 to 100 characters, shown in the console. Example: Shipping notices.
            template (TemplateUse): A template a send names: rendered when the recipient is known, with the explicit
                `locale`,
                else the recipient's own language when they follow the business, else the template's
                default (each by RFC 4647 lookup: `pt-BR`, then `pt`). A replay with the same
                Idempotency-Key answers the original; the template and its variables are part of the key's
                content.
            body (None | Unset):
            max_per_second (int | None | Unset): The most messages per second, 1 to half of `BUSINESS_SENDS_PER_SECOND` (the
                default). Example: 100.
            message_content (None | Unset):
            send_at (datetime.datetime | None | Unset): When to start (RFC 3339, at most 30 days ahead; past, present or
                absent means now). Example: 2026-12-01T09:00:00Z.
    """

    category: BroadcastCategory
    name: str
    template: TemplateUse
    body: None | Unset = UNSET
    max_per_second: int | None | Unset = UNSET
    message_content: None | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        name = self.name

        template = self.template.to_dict()

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
                "name": name,
                "template": template,
            }
        )
        if body is not UNSET:
            field_dict["body"] = body
        if max_per_second is not UNSET:
            field_dict["max_per_second"] = max_per_second
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

        name = d.pop("name")

        template = TemplateUse.from_dict(d.pop("template"))

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

        templated_broadcast = cls(
            category=category,
            name=name,
            template=template,
            body=body,
            max_per_second=max_per_second,
            message_content=message_content,
            send_at=send_at,
        )

        return templated_broadcast
