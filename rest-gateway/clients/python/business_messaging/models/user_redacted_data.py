from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UserRedactedData")


@_attrs_define
class UserRedactedData:
    """`user.redacted`: a user the business knew (sent a message to, heard from, or had as a
    follower) was erased on their request. Their number, what they wrote and what was sent to
    them are gone from the business's history, conversations, events and deliveries; the
    consent ledger and message metadata stay, by `user_id`. Delete your own copies.

        Attributes:
            erased_at (datetime.datetime): When the user was erased (RFC 3339).
            user_id (UUID):
    """

    erased_at: datetime.datetime
    user_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        erased_at = self.erased_at.isoformat()

        user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "erased_at": erased_at,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        erased_at = datetime.datetime.fromisoformat(d.pop("erased_at"))

        user_id = UUID(d.pop("user_id"))

        user_redacted_data = cls(
            erased_at=erased_at,
            user_id=user_id,
        )

        user_redacted_data.additional_properties = d
        return user_redacted_data

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
