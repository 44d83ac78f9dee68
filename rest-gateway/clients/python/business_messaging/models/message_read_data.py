from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MessageReadData")


@_attrs_define
class MessageReadData:
    """`message.read`: the user's read mark moved forward over delivered messages of the business
    (never sent while the user's read receipts are off).

        Attributes:
            read_at (datetime.datetime):
            read_up_to (UUID): The message the mark now stands on: the business's messages at or before it are read.
            user_id (UUID):
            conversation_id (None | Unset | UUID): Null when the user never wrote to the business.
    """

    read_at: datetime.datetime
    read_up_to: UUID
    user_id: UUID
    conversation_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        read_at = self.read_at.isoformat()

        read_up_to = str(self.read_up_to)

        user_id = str(self.user_id)

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
                "read_at": read_at,
                "read_up_to": read_up_to,
                "user_id": user_id,
            }
        )
        if conversation_id is not UNSET:
            field_dict["conversation_id"] = conversation_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        read_at = datetime.datetime.fromisoformat(d.pop("read_at"))

        read_up_to = UUID(d.pop("read_up_to"))

        user_id = UUID(d.pop("user_id"))

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

        message_read_data = cls(
            read_at=read_at,
            read_up_to=read_up_to,
            user_id=user_id,
            conversation_id=conversation_id,
        )

        message_read_data.additional_properties = d
        return message_read_data

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
