from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="OtpRequestBody")


@_attrs_define
class OtpRequestBody:
    """
    Attributes:
        phone_number (str): E.164 phone number of an existing account, e.g. `+14155550123`. Example: +14155550123.
    """

    phone_number: str

    def to_dict(self) -> dict[str, Any]:
        phone_number = self.phone_number

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "phone_number": phone_number,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        phone_number = d.pop("phone_number")

        otp_request_body = cls(
            phone_number=phone_number,
        )

        return otp_request_body
