from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.failure_reason import FailureReason, check_failure_reason
from ..models.message_source import MessageSource, check_message_source
from ..models.message_status import MessageStatus, check_message_status
from ..models.record_category import RecordCategory, check_record_category
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.message_record_message_content_type_0 import (
        MessageRecordMessageContentType0,
    )
    from ..models.message_template_ref import MessageTemplateRef


T = TypeVar("T", bound="MessageRecord")


@_attrs_define
class MessageRecord:
    """One message of the history.

    Attributes:
        category (RecordCategory): A message's category in the history: a send category, or `service` for free-form
            text.
        created_at (datetime.datetime):
        id (UUID):
        recipient_user_id (UUID):
        source (MessageSource): Where a message came from.
        status (MessageStatus): A message's status: `accepted` until the outcome is known.
        app_id (None | Unset | UUID):
        body (None | str | Unset): The text sent (utility, service and plain marketing messages).
        broadcast_id (None | Unset | UUID): The broadcast it belongs to; null for single sends.
        completed_at (datetime.datetime | None | Unset):
        conversation_id (None | Unset | UUID): The conversation it was sent in; null elsewhere.
        expires_at (datetime.datetime | None | Unset):
        failure_reason (FailureReason | None | Unset):
        message_content (MessageRecordMessageContentType0 | None | Unset): The structured content sent; an
            authentication message's `code` shows as `"******"`.
        send_at (datetime.datetime | None | Unset): As sent; null when not given.
        sent_by (None | Unset | UUID): The team member's user id for a console send; null for app, service and broadcast
            messages.
        template (MessageTemplateRef | None | Unset):
        to (None | str | Unset): Null for a broadcast message and for a conversation message: neither hands the business
            a number.
    """

    category: RecordCategory
    created_at: datetime.datetime
    id: UUID
    recipient_user_id: UUID
    source: MessageSource
    status: MessageStatus
    app_id: None | Unset | UUID = UNSET
    body: None | str | Unset = UNSET
    broadcast_id: None | Unset | UUID = UNSET
    completed_at: datetime.datetime | None | Unset = UNSET
    conversation_id: None | Unset | UUID = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    failure_reason: FailureReason | None | Unset = UNSET
    message_content: MessageRecordMessageContentType0 | None | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET
    sent_by: None | Unset | UUID = UNSET
    template: MessageTemplateRef | None | Unset = UNSET
    to: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.message_record_message_content_type_0 import (
            MessageRecordMessageContentType0,  # noqa: PLC0415
        )
        from ..models.message_template_ref import MessageTemplateRef  # noqa: PLC0415

        category: str = self.category

        created_at = self.created_at.isoformat()

        id = str(self.id)

        recipient_user_id = str(self.recipient_user_id)

        source: str = self.source

        status: str = self.status

        app_id: None | str | Unset
        if isinstance(self.app_id, Unset):
            app_id = UNSET
        elif isinstance(self.app_id, UUID):
            app_id = str(self.app_id)
        else:
            app_id = self.app_id

        body: None | str | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        else:
            body = self.body

        broadcast_id: None | str | Unset
        if isinstance(self.broadcast_id, Unset):
            broadcast_id = UNSET
        elif isinstance(self.broadcast_id, UUID):
            broadcast_id = str(self.broadcast_id)
        else:
            broadcast_id = self.broadcast_id

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        elif isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        conversation_id: None | str | Unset
        if isinstance(self.conversation_id, Unset):
            conversation_id = UNSET
        elif isinstance(self.conversation_id, UUID):
            conversation_id = str(self.conversation_id)
        else:
            conversation_id = self.conversation_id

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        failure_reason: None | str | Unset
        if isinstance(self.failure_reason, Unset):
            failure_reason = UNSET
        elif isinstance(self.failure_reason, str):
            failure_reason = self.failure_reason
        else:
            failure_reason = self.failure_reason

        message_content: dict[str, Any] | None | Unset
        if isinstance(self.message_content, Unset):
            message_content = UNSET
        elif isinstance(self.message_content, MessageRecordMessageContentType0):
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

        sent_by: None | str | Unset
        if isinstance(self.sent_by, Unset):
            sent_by = UNSET
        elif isinstance(self.sent_by, UUID):
            sent_by = str(self.sent_by)
        else:
            sent_by = self.sent_by

        template: dict[str, Any] | None | Unset
        if isinstance(self.template, Unset):
            template = UNSET
        elif isinstance(self.template, MessageTemplateRef):
            template = self.template.to_dict()
        else:
            template = self.template

        to: None | str | Unset
        if isinstance(self.to, Unset):
            to = UNSET
        else:
            to = self.to

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "category": category,
                "created_at": created_at,
                "id": id,
                "recipient_user_id": recipient_user_id,
                "source": source,
                "status": status,
            }
        )
        if app_id is not UNSET:
            field_dict["app_id"] = app_id
        if body is not UNSET:
            field_dict["body"] = body
        if broadcast_id is not UNSET:
            field_dict["broadcast_id"] = broadcast_id
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if conversation_id is not UNSET:
            field_dict["conversation_id"] = conversation_id
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if failure_reason is not UNSET:
            field_dict["failure_reason"] = failure_reason
        if message_content is not UNSET:
            field_dict["message_content"] = message_content
        if send_at is not UNSET:
            field_dict["send_at"] = send_at
        if sent_by is not UNSET:
            field_dict["sent_by"] = sent_by
        if template is not UNSET:
            field_dict["template"] = template
        if to is not UNSET:
            field_dict["to"] = to

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_record_message_content_type_0 import (
            MessageRecordMessageContentType0,  # noqa: PLC0415
        )
        from ..models.message_template_ref import MessageTemplateRef  # noqa: PLC0415

        d = dict(src_dict)
        category = check_record_category(d.pop("category"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        recipient_user_id = UUID(d.pop("recipient_user_id"))

        source = check_message_source(d.pop("source"))

        status = check_message_status(d.pop("status"))

        def _parse_app_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                app_id_type_0 = UUID(data)

                return app_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        app_id = _parse_app_id(d.pop("app_id", UNSET))

        def _parse_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

        def _parse_broadcast_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                broadcast_id_type_0 = UUID(data)

                return broadcast_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        broadcast_id = _parse_broadcast_id(d.pop("broadcast_id", UNSET))

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

        def _parse_failure_reason(data: object) -> FailureReason | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                failure_reason_type_0 = check_failure_reason(data)

                return failure_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FailureReason | None | Unset, data)

        failure_reason = _parse_failure_reason(d.pop("failure_reason", UNSET))

        def _parse_message_content(
            data: object,
        ) -> MessageRecordMessageContentType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                message_content_type_0 = MessageRecordMessageContentType0.from_dict(
                    data
                )

                return message_content_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessageRecordMessageContentType0 | None | Unset, data)

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

        def _parse_sent_by(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sent_by_type_0 = UUID(data)

                return sent_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        sent_by = _parse_sent_by(d.pop("sent_by", UNSET))

        def _parse_template(data: object) -> MessageTemplateRef | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                template_type_0 = MessageTemplateRef.from_dict(data)

                return template_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessageTemplateRef | None | Unset, data)

        template = _parse_template(d.pop("template", UNSET))

        def _parse_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        to = _parse_to(d.pop("to", UNSET))

        message_record = cls(
            category=category,
            created_at=created_at,
            id=id,
            recipient_user_id=recipient_user_id,
            source=source,
            status=status,
            app_id=app_id,
            body=body,
            broadcast_id=broadcast_id,
            completed_at=completed_at,
            conversation_id=conversation_id,
            expires_at=expires_at,
            failure_reason=failure_reason,
            message_content=message_content,
            send_at=send_at,
            sent_by=sent_by,
            template=template,
            to=to,
        )

        message_record.additional_properties = d
        return message_record

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
