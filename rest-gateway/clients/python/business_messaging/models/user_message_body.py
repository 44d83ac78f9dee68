from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="UserMessageBody")


@_attrs_define
class UserMessageBody:
    """A user's message to a business.

    Attributes:
        text (str): 1 to 4,096 characters. Example: Is my order on its way?.
        client_message_id (None | Unset | UUID): A UUID of the app's choosing: a retry with the same id, business and
            text answers the
            original message (201, the same body) while it is kept.
        reply_to (None | Unset | UUID): Any message of the thread.
    """

    text: str
    client_message_id: None | Unset | UUID = UNSET
    reply_to: None | Unset | UUID = UNSET

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        client_message_id: None | str | Unset
        if isinstance(self.client_message_id, Unset):
            client_message_id = UNSET
        elif isinstance(self.client_message_id, UUID):
            client_message_id = str(self.client_message_id)
        else:
            client_message_id = self.client_message_id

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        elif isinstance(self.reply_to, UUID):
            reply_to = str(self.reply_to)
        else:
            reply_to = self.reply_to

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "text": text,
            }
        )
        if client_message_id is not UNSET:
            field_dict["client_message_id"] = client_message_id
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        text = d.pop("text")

        def _parse_client_message_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                client_message_id_type_0 = UUID(data)

                return client_message_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        client_message_id = _parse_client_message_id(d.pop("client_message_id", UNSET))

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

        user_message_body = cls(
            text=text,
            client_message_id=client_message_id,
            reply_to=reply_to,
        )

        return user_message_body
