from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_event_type import DeliveryEventType, check_delivery_event_type
from ..models.delivery_status import DeliveryStatus, check_delivery_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attempt import Attempt
    from ..models.delivery_detail_payload_type_0 import DeliveryDetailPayloadType0


T = TypeVar("T", bound="DeliveryDetail")


@_attrs_define
class DeliveryDetail:
    """A delivery with every attempt, oldest first, and what the last one sent.

    Attributes:
        attempts (int):
        created_at (datetime.datetime):
        event_id (UUID):
        event_type (DeliveryEventType): An event type in the deliveries log: a subscribable event, or `webhook.test`.
        id (UUID): The `X-Service-Delivery` header.
        status (DeliveryStatus): A webhook delivery's status.
        updated_at (datetime.datetime):
        webhook_id (UUID):
        attempts_log (list[Attempt]):
        last_error (None | str | Unset):
        last_http_status (int | None | Unset):
        message_send_id (None | Unset | UUID): The message the event announces (`message.sent`, `message.failed`); null
            otherwise.
        next_attempt_at (datetime.datetime | None | Unset):
        payload (DeliveryDetailPayloadType0 | None | Unset): The exact bytes the last attempt sent, as a JSON value (the
            webhook payload); null before
            the first attempt.
    """

    attempts: int
    created_at: datetime.datetime
    event_id: UUID
    event_type: DeliveryEventType
    id: UUID
    status: DeliveryStatus
    updated_at: datetime.datetime
    webhook_id: UUID
    attempts_log: list[Attempt]
    last_error: None | str | Unset = UNSET
    last_http_status: int | None | Unset = UNSET
    message_send_id: None | Unset | UUID = UNSET
    next_attempt_at: datetime.datetime | None | Unset = UNSET
    payload: DeliveryDetailPayloadType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_detail_payload_type_0 import (
            DeliveryDetailPayloadType0,  # noqa: PLC0415
        )

        attempts = self.attempts

        created_at = self.created_at.isoformat()

        event_id = str(self.event_id)

        event_type: str = self.event_type

        id = str(self.id)

        status: str = self.status

        updated_at = self.updated_at.isoformat()

        webhook_id = str(self.webhook_id)

        attempts_log = []
        for attempts_log_item_data in self.attempts_log:
            attempts_log_item = attempts_log_item_data.to_dict()
            attempts_log.append(attempts_log_item)

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        last_http_status: int | None | Unset
        if isinstance(self.last_http_status, Unset):
            last_http_status = UNSET
        else:
            last_http_status = self.last_http_status

        message_send_id: None | str | Unset
        if isinstance(self.message_send_id, Unset):
            message_send_id = UNSET
        elif isinstance(self.message_send_id, UUID):
            message_send_id = str(self.message_send_id)
        else:
            message_send_id = self.message_send_id

        next_attempt_at: None | str | Unset
        if isinstance(self.next_attempt_at, Unset):
            next_attempt_at = UNSET
        elif isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        payload: dict[str, Any] | None | Unset
        if isinstance(self.payload, Unset):
            payload = UNSET
        elif isinstance(self.payload, DeliveryDetailPayloadType0):
            payload = self.payload.to_dict()
        else:
            payload = self.payload

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "event_id": event_id,
                "event_type": event_type,
                "id": id,
                "status": status,
                "updated_at": updated_at,
                "webhook_id": webhook_id,
                "attempts_log": attempts_log,
            }
        )
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if last_http_status is not UNSET:
            field_dict["last_http_status"] = last_http_status
        if message_send_id is not UNSET:
            field_dict["message_send_id"] = message_send_id
        if next_attempt_at is not UNSET:
            field_dict["next_attempt_at"] = next_attempt_at
        if payload is not UNSET:
            field_dict["payload"] = payload

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt import Attempt  # noqa: PLC0415
        from ..models.delivery_detail_payload_type_0 import (
            DeliveryDetailPayloadType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        event_id = UUID(d.pop("event_id"))

        event_type = check_delivery_event_type(d.pop("event_type"))

        id = UUID(d.pop("id"))

        status = check_delivery_status(d.pop("status"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        webhook_id = UUID(d.pop("webhook_id"))

        attempts_log = []
        _attempts_log = d.pop("attempts_log")
        for attempts_log_item_data in _attempts_log:
            attempts_log_item = Attempt.from_dict(attempts_log_item_data)

            attempts_log.append(attempts_log_item)

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))

        def _parse_last_http_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        last_http_status = _parse_last_http_status(d.pop("last_http_status", UNSET))

        def _parse_message_send_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                message_send_id_type_0 = UUID(data)

                return message_send_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        message_send_id = _parse_message_send_id(d.pop("message_send_id", UNSET))

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at", UNSET))

        def _parse_payload(data: object) -> DeliveryDetailPayloadType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                payload_type_0 = DeliveryDetailPayloadType0.from_dict(data)

                return payload_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeliveryDetailPayloadType0 | None | Unset, data)

        payload = _parse_payload(d.pop("payload", UNSET))

        delivery_detail = cls(
            attempts=attempts,
            created_at=created_at,
            event_id=event_id,
            event_type=event_type,
            id=id,
            status=status,
            updated_at=updated_at,
            webhook_id=webhook_id,
            attempts_log=attempts_log,
            last_error=last_error,
            last_http_status=last_http_status,
            message_send_id=message_send_id,
            next_attempt_at=next_attempt_at,
            payload=payload,
        )

        delivery_detail.additional_properties = d
        return delivery_detail

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
