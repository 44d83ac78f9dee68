from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.direction import Direction, check_direction
from ..models.message_status import MessageStatus, check_message_status
from ..models.record_category import RecordCategory, check_record_category
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.thread_entry_message_content_type_0 import (
        ThreadEntryMessageContentType0,
    )


T = TypeVar("T", bound="ThreadEntry")


@_attrs_define
class ThreadEntry:
    """A thread entry: a user message (`inbound`) or a business message (`outbound`).

    Attributes:
        at (datetime.datetime): The message's position: a user message's receipt time, a business message's effective
            time.
        direction (Direction): Which side wrote a thread entry: the user (`inbound`) or the business (`outbound`).
        id (UUID):
        body (None | str | Unset):
        category (None | RecordCategory | Unset):
        conversation_id (None | Unset | UUID):
        message_content (None | ThreadEntryMessageContentType0 | Unset): Outbound structured content (an authentication
            code is `"******"` for the business).
        read_at (datetime.datetime | None | Unset): When the other side's read mark first covered it.
        reply_to (None | Unset | UUID):
        sequence (int | None | Unset): Inbound only.
        status (MessageStatus | None | Unset):
    """

    at: datetime.datetime
    direction: Direction
    id: UUID
    body: None | str | Unset = UNSET
    category: None | RecordCategory | Unset = UNSET
    conversation_id: None | Unset | UUID = UNSET
    message_content: None | ThreadEntryMessageContentType0 | Unset = UNSET
    read_at: datetime.datetime | None | Unset = UNSET
    reply_to: None | Unset | UUID = UNSET
    sequence: int | None | Unset = UNSET
    status: MessageStatus | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.thread_entry_message_content_type_0 import (
            ThreadEntryMessageContentType0,  # noqa: PLC0415
        )

        at = self.at.isoformat()

        direction: str = self.direction

        id = str(self.id)

        body: None | str | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        else:
            body = self.body

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        elif isinstance(self.category, str):
            category = self.category
        else:
            category = self.category

        conversation_id: None | str | Unset
        if isinstance(self.conversation_id, Unset):
            conversation_id = UNSET
        elif isinstance(self.conversation_id, UUID):
            conversation_id = str(self.conversation_id)
        else:
            conversation_id = self.conversation_id

        message_content: dict[str, Any] | None | Unset
        if isinstance(self.message_content, Unset):
            message_content = UNSET
        elif isinstance(self.message_content, ThreadEntryMessageContentType0):
            message_content = self.message_content.to_dict()
        else:
            message_content = self.message_content

        read_at: None | str | Unset
        if isinstance(self.read_at, Unset):
            read_at = UNSET
        elif isinstance(self.read_at, datetime.datetime):
            read_at = self.read_at.isoformat()
        else:
            read_at = self.read_at

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        elif isinstance(self.reply_to, UUID):
            reply_to = str(self.reply_to)
        else:
            reply_to = self.reply_to

        sequence: int | None | Unset
        if isinstance(self.sequence, Unset):
            sequence = UNSET
        else:
            sequence = self.sequence

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, str):
            status = self.status
        else:
            status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "direction": direction,
                "id": id,
            }
        )
        if body is not UNSET:
            field_dict["body"] = body
        if category is not UNSET:
            field_dict["category"] = category
        if conversation_id is not UNSET:
            field_dict["conversation_id"] = conversation_id
        if message_content is not UNSET:
            field_dict["message_content"] = message_content
        if read_at is not UNSET:
            field_dict["read_at"] = read_at
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to
        if sequence is not UNSET:
            field_dict["sequence"] = sequence
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.thread_entry_message_content_type_0 import (
            ThreadEntryMessageContentType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        direction = check_direction(d.pop("direction"))

        id = UUID(d.pop("id"))

        def _parse_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

        def _parse_category(data: object) -> None | RecordCategory | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                category_type_0 = check_record_category(data)

                return category_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RecordCategory | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        def _parse_conversation_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                conversation_id_type_0 = UUID(data)

                return conversation_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        conversation_id = _parse_conversation_id(d.pop("conversation_id", UNSET))

        def _parse_message_content(
            data: object,
        ) -> None | ThreadEntryMessageContentType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                message_content_type_0 = ThreadEntryMessageContentType0.from_dict(data)

                return message_content_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThreadEntryMessageContentType0 | Unset, data)

        message_content = _parse_message_content(d.pop("message_content", UNSET))

        def _parse_read_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                read_at_type_0 = datetime.datetime.fromisoformat(data)

                return read_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        read_at = _parse_read_at(d.pop("read_at", UNSET))

        def _parse_reply_to(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reply_to_type_0 = UUID(data)

                return reply_to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        reply_to = _parse_reply_to(d.pop("reply_to", UNSET))

        def _parse_sequence(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        sequence = _parse_sequence(d.pop("sequence", UNSET))

        def _parse_status(data: object) -> MessageStatus | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = check_message_status(data)

                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessageStatus | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        thread_entry = cls(
            at=at,
            direction=direction,
            id=id,
            body=body,
            category=category,
            conversation_id=conversation_id,
            message_content=message_content,
            read_at=read_at,
            reply_to=reply_to,
            sequence=sequence,
            status=status,
        )

        thread_entry.additional_properties = d
        return thread_entry

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
