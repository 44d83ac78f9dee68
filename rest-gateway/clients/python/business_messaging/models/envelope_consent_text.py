from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.consent_text import ConsentText


T = TypeVar("T", bound="EnvelopeConsentText")


@_attrs_define
class EnvelopeConsentText:
    """`{success, message, data, timestamp}`, and on failure `detail`.

    Attributes:
        data (ConsentText): One version of a business's consent wording: what its followers agree to when they opt in
            to its marketing.
        message (str): `message_sent` for sends, `ok` for other successes, the error code on failure.
        success (bool): true on success, false on failure.
        timestamp (datetime.datetime): When the answer was made (RFC 3339, UTC).
        detail (None | str | Unset): Failures only: one sentence saying why, naming the field and the rule where there
            is
            one. Never a secret, a stack trace or SQL.
    """

    data: ConsentText
    message: str
    success: bool
    timestamp: datetime.datetime
    detail: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data.to_dict()

        message = self.message

        success = self.success

        timestamp = self.timestamp.isoformat()

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        else:
            detail = self.detail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "message": message,
                "success": success,
                "timestamp": timestamp,
            }
        )
        if detail is not UNSET:
            field_dict["detail"] = detail

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.consent_text import ConsentText  # noqa: PLC0415

        d = dict(src_dict)
        data = ConsentText.from_dict(d.pop("data"))

        message = d.pop("message")

        success = d.pop("success")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        def _parse_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))

        envelope_consent_text = cls(
            data=data,
            message=message,
            success=success,
            timestamp=timestamp,
            detail=detail,
        )

        envelope_consent_text.additional_properties = d
        return envelope_consent_text

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
