from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="QrPreview")


@_attrs_define
class QrPreview:
    """What the approving phone shows about the browser asking to sign in.

    Attributes:
        client_name (str):
        created_at (datetime.datetime):
        expires_at (datetime.datetime):
        origin_hint (str): The creating IP with its last part masked.
    """

    client_name: str
    created_at: datetime.datetime
    expires_at: datetime.datetime
    origin_hint: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        client_name = self.client_name

        created_at = self.created_at.isoformat()

        expires_at = self.expires_at.isoformat()

        origin_hint = self.origin_hint

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "client_name": client_name,
                "created_at": created_at,
                "expires_at": expires_at,
                "origin_hint": origin_hint,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        client_name = d.pop("client_name")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        origin_hint = d.pop("origin_hint")

        qr_preview = cls(
            client_name=client_name,
            created_at=created_at,
            expires_at=expires_at,
            origin_hint=origin_hint,
        )

        qr_preview.additional_properties = d
        return qr_preview

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
