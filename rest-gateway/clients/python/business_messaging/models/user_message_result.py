from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UserMessageResult")


@_attrs_define
class UserMessageResult:
    """A user message as accepted.

    Attributes:
        at (datetime.datetime):
        conversation_id (UUID):
        id (UUID):
        sequence (int): The user's messages in this conversation so far, from 1, in commit order.
        window_expires_at (datetime.datetime): When the business can no longer answer with free text (unless the user
            writes again).
    """

    at: datetime.datetime
    conversation_id: UUID
    id: UUID
    sequence: int
    window_expires_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        conversation_id = str(self.conversation_id)

        id = str(self.id)

        sequence = self.sequence

        window_expires_at = self.window_expires_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "conversation_id": conversation_id,
                "id": id,
                "sequence": sequence,
                "window_expires_at": window_expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        conversation_id = UUID(d.pop("conversation_id"))

        id = UUID(d.pop("id"))

        sequence = d.pop("sequence")

        window_expires_at = datetime.datetime.fromisoformat(d.pop("window_expires_at"))

        user_message_result = cls(
            at=at,
            conversation_id=conversation_id,
            id=id,
            sequence=sequence,
            window_expires_at=window_expires_at,
        )

        user_message_result.additional_properties = d
        return user_message_result

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
