from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.conversation import Conversation


T = TypeVar("T", bound="ConversationList")


@_attrs_define
class ConversationList:
    """
    Attributes:
        conversations (list[Conversation]):
        has_more (bool): Whether more follow: ask again with `starting_after` = the last `id`.
        unread_conversations (int): How many of the business's conversations have unread user messages.
    """

    conversations: list[Conversation]
    has_more: bool
    unread_conversations: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversations = []
        for conversations_item_data in self.conversations:
            conversations_item = conversations_item_data.to_dict()
            conversations.append(conversations_item)

        has_more = self.has_more

        unread_conversations = self.unread_conversations

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversations": conversations,
                "has_more": has_more,
                "unread_conversations": unread_conversations,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.conversation import Conversation  # noqa: PLC0415

        d = dict(src_dict)
        conversations = []
        _conversations = d.pop("conversations")
        for conversations_item_data in _conversations:
            conversations_item = Conversation.from_dict(conversations_item_data)

            conversations.append(conversations_item)

        has_more = d.pop("has_more")

        unread_conversations = d.pop("unread_conversations")

        conversation_list = cls(
            conversations=conversations,
            has_more=has_more,
            unread_conversations=unread_conversations,
        )

        conversation_list.additional_properties = d
        return conversation_list

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
