from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="OtpVerifyBody")


@_attrs_define
class OtpVerifyBody:
    """
    Attributes:
        code (str): The 6-digit code.
        phone_number (str):  Example: +14155550123.
    """

    code: str
    phone_number: str

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        phone_number = self.phone_number

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "code": code,
                "phone_number": phone_number,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        phone_number = d.pop("phone_number")

        otp_verify_body = cls(
            code=code,
            phone_number=phone_number,
        )

        return otp_verify_body
