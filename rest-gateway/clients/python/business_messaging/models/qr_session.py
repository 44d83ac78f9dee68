from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="QrSession")


@_attrs_define
class QrSession:
    """A new QR session. Show `qr_payload` as a QR code; keep `exchange_secret` in the browser.

    Attributes:
        exchange_secret (str): Send it back in `X-Service-QR-Secret` to poll and exchange.
        expires_at (datetime.datetime):
        id (UUID):
        qr_payload (str): `service://business-login/<id>`.
    """

    exchange_secret: str
    expires_at: datetime.datetime
    id: UUID
    qr_payload: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        exchange_secret = self.exchange_secret

        expires_at = self.expires_at.isoformat()

        id = str(self.id)

        qr_payload = self.qr_payload

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "exchange_secret": exchange_secret,
                "expires_at": expires_at,
                "id": id,
                "qr_payload": qr_payload,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        exchange_secret = d.pop("exchange_secret")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        id = UUID(d.pop("id"))

        qr_payload = d.pop("qr_payload")

        qr_session = cls(
            exchange_secret=exchange_secret,
            expires_at=expires_at,
            id=id,
            qr_payload=qr_payload,
        )

        qr_session.additional_properties = d
        return qr_session

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
