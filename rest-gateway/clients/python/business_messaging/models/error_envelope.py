from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ErrorEnvelope")


@_attrs_define
class ErrorEnvelope:
    """A failure: `message` is the error code, `data` is null, `detail` says why.

    Example:
        {'data': None, 'detail': 'body: at most 4096 characters', 'message': 'invalid_request', 'success': False,
            'timestamp': '2026-11-23T10:00:00.000Z'}

    Attributes:
        data (None):
        detail (str): One sentence saying why, naming the field and the rule where there is one.
        message (str): The error code: one of `ErrorCode` (a client should accept a code it does not know yet).
        success (bool):
        timestamp (datetime.datetime):
    """

    data: None
    detail: str
    message: str
    success: bool
    timestamp: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        detail = self.detail

        message = self.message

        success = self.success

        timestamp = self.timestamp.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "detail": detail,
                "message": message,
                "success": success,
                "timestamp": timestamp,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        data = d.pop("data")

        detail = d.pop("detail")

        message = d.pop("message")

        success = d.pop("success")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        error_envelope = cls(
            data=data,
            detail=detail,
            message=message,
            success=success,
            timestamp=timestamp,
        )

        error_envelope.additional_properties = d
        return error_envelope

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
