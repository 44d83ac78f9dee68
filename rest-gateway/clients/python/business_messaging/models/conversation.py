from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.conversation_status import ConversationStatus, check_conversation_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="Conversation")


@_attrs_define
class Conversation:
    """A conversation as its business sees it (never a phone number).

    Attributes:
        blocked (bool): Whether the user's messages are refused.
        follows (bool): Whether the user follows the business now.
        id (UUID):
        last_inbound_at (datetime.datetime):
        last_message_at (datetime.datetime):
        marketing_opt_in (bool):
        status (ConversationStatus): A conversation's status: a user message reopens a closed one.
        unread (int): User messages after the business's read mark.
        user_id (UUID):
        window_expires_at (datetime.datetime): Free text may be sent until then.
        assigned_to (None | Unset | UUID):
        display_name (None | str | Unset): The name the user chose, if any.
        label (None | str | Unset): The team's label, if any.
    """

    blocked: bool
    follows: bool
    id: UUID
    last_inbound_at: datetime.datetime
    last_message_at: datetime.datetime
    marketing_opt_in: bool
    status: ConversationStatus
    unread: int
    user_id: UUID
    window_expires_at: datetime.datetime
    assigned_to: None | Unset | UUID = UNSET
    display_name: None | str | Unset = UNSET
    label: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        blocked = self.blocked

        follows = self.follows

        id = str(self.id)

        last_inbound_at = self.last_inbound_at.isoformat()

        last_message_at = self.last_message_at.isoformat()

        marketing_opt_in = self.marketing_opt_in

        status: str = self.status

        unread = self.unread

        user_id = str(self.user_id)

        window_expires_at = self.window_expires_at.isoformat()

        assigned_to: None | str | Unset
        if isinstance(self.assigned_to, Unset):
            assigned_to = UNSET
        elif isinstance(self.assigned_to, UUID):
            assigned_to = str(self.assigned_to)
        else:
            assigned_to = self.assigned_to

        display_name: None | str | Unset
        if isinstance(self.display_name, Unset):
            display_name = UNSET
        else:
            display_name = self.display_name

        label: None | str | Unset
        if isinstance(self.label, Unset):
            label = UNSET
        else:
            label = self.label

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "blocked": blocked,
                "follows": follows,
                "id": id,
                "last_inbound_at": last_inbound_at,
                "last_message_at": last_message_at,
                "marketing_opt_in": marketing_opt_in,
                "status": status,
                "unread": unread,
                "user_id": user_id,
                "window_expires_at": window_expires_at,
            }
        )
        if assigned_to is not UNSET:
            field_dict["assigned_to"] = assigned_to
        if display_name is not UNSET:
            field_dict["display_name"] = display_name
        if label is not UNSET:
            field_dict["label"] = label

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        blocked = d.pop("blocked")

        follows = d.pop("follows")

        id = UUID(d.pop("id"))

        last_inbound_at = datetime.datetime.fromisoformat(d.pop("last_inbound_at"))

        last_message_at = datetime.datetime.fromisoformat(d.pop("last_message_at"))

        marketing_opt_in = d.pop("marketing_opt_in")

        status = check_conversation_status(d.pop("status"))

        unread = d.pop("unread")

        user_id = UUID(d.pop("user_id"))

        window_expires_at = datetime.datetime.fromisoformat(d.pop("window_expires_at"))

        def _parse_assigned_to(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                assigned_to_type_0 = UUID(data)

                return assigned_to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        assigned_to = _parse_assigned_to(d.pop("assigned_to", UNSET))

        def _parse_display_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_name = _parse_display_name(d.pop("display_name", UNSET))

        def _parse_label(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        label = _parse_label(d.pop("label", UNSET))

        conversation = cls(
            blocked=blocked,
            follows=follows,
            id=id,
            last_inbound_at=last_inbound_at,
            last_message_at=last_message_at,
            marketing_opt_in=marketing_opt_in,
            status=status,
            unread=unread,
            user_id=user_id,
            window_expires_at=window_expires_at,
            assigned_to=assigned_to,
            display_name=display_name,
            label=label,
        )

        conversation.additional_properties = d
        return conversation

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
