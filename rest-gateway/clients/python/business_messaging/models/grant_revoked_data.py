from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="GrantRevokedData")


@_attrs_define
class GrantRevokedData:
    """`grant.revoked`: a user revoked a developer app's sign-in grant.

    Attributes:
        chatx_user_id (UUID): The user who revoked it.
        client_id (UUID): The developer app's id.
    """

    chatx_user_id: UUID
    client_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        chatx_user_id = str(self.chatx_user_id)

        client_id = str(self.client_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "chatx_user_id": chatx_user_id,
                "client_id": client_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        chatx_user_id = UUID(d.pop("chatx_user_id"))

        client_id = UUID(d.pop("client_id"))

        grant_revoked_data = cls(
            chatx_user_id=chatx_user_id,
            client_id=client_id,
        )

        grant_revoked_data.additional_properties = d
        return grant_revoked_data

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
