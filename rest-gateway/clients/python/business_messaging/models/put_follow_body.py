from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PutFollowBody")


@_attrs_define
class PutFollowBody:
    """
    Attributes:
        consent_text_version (int | None | Unset): The consent wording version the user was shown (`GET
            /businesses/{businessAccountId}/consent-text`): a marketing opt-in records that the user
            named it; a version no longer in force is 409 `consent_text_changed`.
        marketing_opt_in (bool | None | Unset): Default false.
    """

    consent_text_version: int | None | Unset = UNSET
    marketing_opt_in: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        consent_text_version: int | None | Unset
        if isinstance(self.consent_text_version, Unset):
            consent_text_version = UNSET
        else:
            consent_text_version = self.consent_text_version

        marketing_opt_in: bool | None | Unset
        if isinstance(self.marketing_opt_in, Unset):
            marketing_opt_in = UNSET
        else:
            marketing_opt_in = self.marketing_opt_in

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if consent_text_version is not UNSET:
            field_dict["consent_text_version"] = consent_text_version
        if marketing_opt_in is not UNSET:
            field_dict["marketing_opt_in"] = marketing_opt_in

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_consent_text_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        consent_text_version = _parse_consent_text_version(
            d.pop("consent_text_version", UNSET)
        )

        def _parse_marketing_opt_in(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        marketing_opt_in = _parse_marketing_opt_in(d.pop("marketing_opt_in", UNSET))

        put_follow_body = cls(
            consent_text_version=consent_text_version,
            marketing_opt_in=marketing_opt_in,
        )

        return put_follow_body
