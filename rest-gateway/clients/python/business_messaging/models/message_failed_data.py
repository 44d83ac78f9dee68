from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.failure_reason import FailureReason, check_failure_reason
from ..models.record_category import RecordCategory, check_record_category
from ..types import UNSET, Unset

T = TypeVar("T", bound="MessageFailedData")


@_attrs_define
class MessageFailedData:
    """`message.failed`: a send was not delivered.

    Attributes:
        category (RecordCategory): A message's category in the history: a send category, or `service` for free-form
            text.
        message_send_id (UUID):
        reason (FailureReason): Why a message failed.
        recipient_user_id (UUID):
        status (str): `failed`.
        broadcast_id (None | Unset | UUID): The broadcast the message belongs to; null for single sends.
        conversation_id (None | Unset | UUID): The conversation the message was sent in; null elsewhere.
    """

    category: RecordCategory
    message_send_id: UUID
    reason: FailureReason
    recipient_user_id: UUID
    status: str
    broadcast_id: None | Unset | UUID = UNSET
    conversation_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        message_send_id = str(self.message_send_id)

        reason: str = self.reason

        recipient_user_id = str(self.recipient_user_id)

        status = self.status

        broadcast_id: None | str | Unset
        if isinstance(self.broadcast_id, Unset):
            broadcast_id = UNSET
        elif isinstance(self.broadcast_id, UUID):
            broadcast_id = str(self.broadcast_id)
        else:
            broadcast_id = self.broadcast_id

        conversation_id: None | str | Unset
        if isinstance(self.conversation_id, Unset):
            conversation_id = UNSET
        elif isinstance(self.conversation_id, UUID):
            conversation_id = str(self.conversation_id)
        else:
            conversation_id = self.conversation_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "category": category,
                "message_send_id": message_send_id,
                "reason": reason,
                "recipient_user_id": recipient_user_id,
                "status": status,
            }
        )
        if broadcast_id is not UNSET:
            field_dict["broadcast_id"] = broadcast_id
        if conversation_id is not UNSET:
            field_dict["conversation_id"] = conversation_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        category = check_record_category(d.pop("category"))

        message_send_id = UUID(d.pop("message_send_id"))

        reason = check_failure_reason(d.pop("reason"))

        recipient_user_id = UUID(d.pop("recipient_user_id"))

        status = d.pop("status")

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

        message_failed_data = cls(
            category=category,
            message_send_id=message_send_id,
            reason=reason,
            recipient_user_id=recipient_user_id,
            status=status,
            broadcast_id=broadcast_id,
            conversation_id=conversation_id,
        )

        message_failed_data.additional_properties = d
        return message_failed_data

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
