from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.failure_reason import FailureReason, check_failure_reason
from ..models.message_source import MessageSource, check_message_source
from ..models.message_status import MessageStatus, check_message_status
from ..models.record_category import RecordCategory, check_record_category
from ..types import UNSET, Unset

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
        broadcast_id (None | Unset | UUID): The broadcast it belongs to; null for single sends.
        completed_at (datetime.datetime | None | Unset):
        expires_at (datetime.datetime | None | Unset):
        failure_reason (FailureReason | None | Unset):
        send_at (datetime.datetime | None | Unset): As sent; null when not given.
        sent_by (None | Unset | UUID): The team member's user id for a console send; null for app, service and broadcast
            messages.
        to (None | str | Unset): Null for a broadcast message: a broadcast never hands the business its followers'
            numbers.
    """

    category: RecordCategory
    created_at: datetime.datetime
    id: UUID
    recipient_user_id: UUID
    source: MessageSource
    status: MessageStatus
    app_id: None | Unset | UUID = UNSET
    broadcast_id: None | Unset | UUID = UNSET
    completed_at: datetime.datetime | None | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    failure_reason: FailureReason | None | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET
    sent_by: None | Unset | UUID = UNSET
    to: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
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
        if broadcast_id is not UNSET:
            field_dict["broadcast_id"] = broadcast_id
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if failure_reason is not UNSET:
            field_dict["failure_reason"] = failure_reason
        if send_at is not UNSET:
            field_dict["send_at"] = send_at
        if sent_by is not UNSET:
            field_dict["sent_by"] = sent_by
        if to is not UNSET:
            field_dict["to"] = to

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
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
            broadcast_id=broadcast_id,
            completed_at=completed_at,
            expires_at=expires_at,
            failure_reason=failure_reason,
            send_at=send_at,
            sent_by=sent_by,
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
