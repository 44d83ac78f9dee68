from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MyConversation")


@_attrs_define
class MyConversation:
    """One business in your list of threads.

    Attributes:
        business_account_id (UUID):
        business_name (str):
        last_message_at (datetime.datetime):
        unread (int): Its delivered messages after your read mark.
        window_expires_at (datetime.datetime | None | Unset): `null` when you never wrote to it.
    """

    business_account_id: UUID
    business_name: str
    last_message_at: datetime.datetime
    unread: int
    window_expires_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        business_account_id = str(self.business_account_id)

        business_name = self.business_name

        last_message_at = self.last_message_at.isoformat()

        unread = self.unread

        window_expires_at: None | str | Unset
        if isinstance(self.window_expires_at, Unset):
            window_expires_at = UNSET
        elif isinstance(self.window_expires_at, datetime.datetime):
            window_expires_at = self.window_expires_at.isoformat()
        else:
            window_expires_at = self.window_expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "business_account_id": business_account_id,
                "business_name": business_name,
                "last_message_at": last_message_at,
                "unread": unread,
            }
        )
        if window_expires_at is not UNSET:
            field_dict["window_expires_at"] = window_expires_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        business_account_id = UUID(d.pop("business_account_id"))

        business_name = d.pop("business_name")

        last_message_at = datetime.datetime.fromisoformat(d.pop("last_message_at"))

        unread = d.pop("unread")

        def _parse_window_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                window_expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return window_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        window_expires_at = _parse_window_expires_at(d.pop("window_expires_at", UNSET))

        my_conversation = cls(
            business_account_id=business_account_id,
            business_name=business_name,
            last_message_at=last_message_at,
            unread=unread,
            window_expires_at=window_expires_at,
        )

        my_conversation.additional_properties = d
        return my_conversation

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
