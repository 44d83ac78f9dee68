from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.broadcast_category import BroadcastCategory, check_broadcast_category
from ..models.broadcast_status import BroadcastStatus, check_broadcast_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.broadcast_counts import BroadcastCounts
    from ..models.broadcast_message_content_type_0 import BroadcastMessageContentType0
    from ..models.broadcast_template_type_0 import BroadcastTemplateType0


T = TypeVar("T", bound="Broadcast")


@_attrs_define
class Broadcast:
    """A broadcast.

    Attributes:
        category (BroadcastCategory): What a broadcast may send.
        counts (BroadcastCounts): Where a broadcast stands. `audience = accepted + skipped + not_created` once it
            started.
        created_at (datetime.datetime):
        id (UUID):
        max_per_second (int):
        name (str):
        status (BroadcastStatus): A broadcast's status.
        body (None | str | Unset): What it sends: `body`, `message_content`, or `template`.
        completed_at (datetime.datetime | None | Unset): When every created message had its outcome
            (`broadcast.completed`); null before.
        message_content (BroadcastMessageContentType0 | None | Unset):
        send_at (datetime.datetime | None | Unset): As sent; null when not given.
        template (BroadcastTemplateType0 | None | Unset): A templated broadcast's template: `{"id", "name", "version"`
            (the one it renders, fixed
            at creation)`, "variables", "locale"?}`.
    """

    category: BroadcastCategory
    counts: BroadcastCounts
    created_at: datetime.datetime
    id: UUID
    max_per_second: int
    name: str
    status: BroadcastStatus
    body: None | str | Unset = UNSET
    completed_at: datetime.datetime | None | Unset = UNSET
    message_content: BroadcastMessageContentType0 | None | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET
    template: BroadcastTemplateType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.broadcast_message_content_type_0 import (
            BroadcastMessageContentType0,  # noqa: PLC0415
        )
        from ..models.broadcast_template_type_0 import (
            BroadcastTemplateType0,  # noqa: PLC0415
        )

        category: str = self.category

        counts = self.counts.to_dict()

        created_at = self.created_at.isoformat()

        id = str(self.id)

        max_per_second = self.max_per_second

        name = self.name

        status: str = self.status

        body: None | str | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        else:
            body = self.body

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        elif isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        message_content: dict[str, Any] | None | Unset
        if isinstance(self.message_content, Unset):
            message_content = UNSET
        elif isinstance(self.message_content, BroadcastMessageContentType0):
            message_content = self.message_content.to_dict()
        else:
            message_content = self.message_content

        send_at: None | str | Unset
        if isinstance(self.send_at, Unset):
            send_at = UNSET
        elif isinstance(self.send_at, datetime.datetime):
            send_at = self.send_at.isoformat()
        else:
            send_at = self.send_at

        template: dict[str, Any] | None | Unset
        if isinstance(self.template, Unset):
            template = UNSET
        elif isinstance(self.template, BroadcastTemplateType0):
            template = self.template.to_dict()
        else:
            template = self.template

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "category": category,
                "counts": counts,
                "created_at": created_at,
                "id": id,
                "max_per_second": max_per_second,
                "name": name,
                "status": status,
            }
        )
        if body is not UNSET:
            field_dict["body"] = body
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if message_content is not UNSET:
            field_dict["message_content"] = message_content
        if send_at is not UNSET:
            field_dict["send_at"] = send_at
        if template is not UNSET:
            field_dict["template"] = template

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.broadcast_counts import BroadcastCounts  # noqa: PLC0415
        from ..models.broadcast_message_content_type_0 import (
            BroadcastMessageContentType0,  # noqa: PLC0415
        )
        from ..models.broadcast_template_type_0 import (
            BroadcastTemplateType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        category = check_broadcast_category(d.pop("category"))

        counts = BroadcastCounts.from_dict(d.pop("counts"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        max_per_second = d.pop("max_per_second")

        name = d.pop("name")

        status = check_broadcast_status(d.pop("status"))

        def _parse_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

        def _parse_completed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        def _parse_message_content(
            data: object,
        ) -> BroadcastMessageContentType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                message_content_type_0 = BroadcastMessageContentType0.from_dict(data)

                return message_content_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BroadcastMessageContentType0 | None | Unset, data)

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

        def _parse_template(data: object) -> BroadcastTemplateType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                template_type_0 = BroadcastTemplateType0.from_dict(data)

                return template_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BroadcastTemplateType0 | None | Unset, data)

        template = _parse_template(d.pop("template", UNSET))

        broadcast = cls(
            category=category,
            counts=counts,
            created_at=created_at,
            id=id,
            max_per_second=max_per_second,
            name=name,
            status=status,
            body=body,
            completed_at=completed_at,
            message_content=message_content,
            send_at=send_at,
            template=template,
        )

        broadcast.additional_properties = d
        return broadcast

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
