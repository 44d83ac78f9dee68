from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.thread_entry import ThreadEntry


T = TypeVar("T", bound="ThreadPage")


@_attrs_define
class ThreadPage:
    """A page of a thread, newest first.

    Attributes:
        has_more (bool): Whether older messages follow: ask again with `starting_after` = the last `id`.
        messages (list[ThreadEntry]):
    """

    has_more: bool
    messages: list[ThreadEntry]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_more = self.has_more

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "has_more": has_more,
                "messages": messages,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.thread_entry import ThreadEntry  # noqa: PLC0415

        d = dict(src_dict)
        has_more = d.pop("has_more")

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ThreadEntry.from_dict(messages_item_data)

            messages.append(messages_item)

        thread_page = cls(
            has_more=has_more,
            messages=messages,
        )

        thread_page.additional_properties = d
        return thread_page

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
