from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.scope import Scope, check_scope

T = TypeVar("T", bound="CreateAppBody")


@_attrs_define
class CreateAppBody:
    """
    Attributes:
        name (str): 1 to 100 characters once trimmed. Example: Order notifications.
        scopes (list[Scope]):
    """

    name: str
    scopes: list[Scope]

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        scopes = []
        for componentsschemas_scope_list_item_data in self.scopes:
            componentsschemas_scope_list_item: str = (
                componentsschemas_scope_list_item_data
            )
            scopes.append(componentsschemas_scope_list_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "scopes": scopes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        scopes = []
        _scopes = d.pop("scopes")
        for componentsschemas_scope_list_item_data in _scopes:
            componentsschemas_scope_list_item = check_scope(
                componentsschemas_scope_list_item_data
            )

            scopes.append(componentsschemas_scope_list_item)

        create_app_body = cls(
            name=name,
            scopes=scopes,
        )

        return create_app_body
