from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MessageReceivedData")


@_attrs_define
class MessageReceivedData:
    """`message.received`: a user wrote to the business. Recorded once per message, delivered at
    least once: deduplicate by `event_id`, order by `sequence`.

        Attributes:
            body (str):
            conversation_id (UUID):
            message_id (UUID):
            received_at (datetime.datetime):
            sequence (int): The user's messages in this conversation so far, from 1, in commit order.
            user_id (UUID): The writer (phone numbers are never shown).
            window_expires_at (datetime.datetime): Free text may be sent to the user until then.
            reply_to (None | Unset | UUID): A message of the thread the user answered; null otherwise.
    """

    body: str
    conversation_id: UUID
    message_id: UUID
    received_at: datetime.datetime
    sequence: int
    user_id: UUID
    window_expires_at: datetime.datetime
    reply_to: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        conversation_id = str(self.conversation_id)

        message_id = str(self.message_id)

        received_at = self.received_at.isoformat()

        sequence = self.sequence

        user_id = str(self.user_id)

        window_expires_at = self.window_expires_at.isoformat()

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        elif isinstance(self.reply_to, UUID):
            reply_to = str(self.reply_to)
        else:
            reply_to = self.reply_to

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "body": body,
                "conversation_id": conversation_id,
                "message_id": message_id,
                "received_at": received_at,
                "sequence": sequence,
                "user_id": user_id,
                "window_expires_at": window_expires_at,
            }
        )
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        body = d.pop("body")

        conversation_id = UUID(d.pop("conversation_id"))

        message_id = UUID(d.pop("message_id"))

        received_at = datetime.datetime.fromisoformat(d.pop("received_at"))

        sequence = d.pop("sequence")

        user_id = UUID(d.pop("user_id"))

        window_expires_at = datetime.datetime.fromisoformat(d.pop("window_expires_at"))

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

        message_received_data = cls(
            body=body,
            conversation_id=conversation_id,
            message_id=message_id,
            received_at=received_at,
            sequence=sequence,
            user_id=user_id,
            window_expires_at=window_expires_at,
            reply_to=reply_to,
        )

        message_received_data.additional_properties = d
        return message_received_data

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
