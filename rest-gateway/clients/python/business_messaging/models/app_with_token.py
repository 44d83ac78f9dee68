from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.scope import Scope, check_scope

T = TypeVar("T", bound="AppWithToken")


@_attrs_define
class AppWithToken:
    """A developer app with its token: shown only in this answer.

    Attributes:
        created_at (datetime.datetime):
        id (UUID):
        name (str):
        scopes (list[Scope]):
        token (str): `sva_...`; store it now, it is never shown again.
        updated_at (datetime.datetime):
    """

    created_at: datetime.datetime
    id: UUID
    name: str
    scopes: list[Scope]
    token: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        name = self.name

        scopes = []
        for componentsschemas_scope_list_item_data in self.scopes:
            componentsschemas_scope_list_item: str = (
                componentsschemas_scope_list_item_data
            )
            scopes.append(componentsschemas_scope_list_item)

        token = self.token

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "name": name,
                "scopes": scopes,
                "token": token,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        name = d.pop("name")

        scopes = []
        _scopes = d.pop("scopes")
        for componentsschemas_scope_list_item_data in _scopes:
            componentsschemas_scope_list_item = check_scope(
                componentsschemas_scope_list_item_data
            )

            scopes.append(componentsschemas_scope_list_item)

        token = d.pop("token")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        app_with_token = cls(
            created_at=created_at,
            id=id,
            name=name,
            scopes=scopes,
            token=token,
            updated_at=updated_at,
        )

        app_with_token.additional_properties = d
        return app_with_token

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
