from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PatchFollowBody")


@_attrs_define
class PatchFollowBody:
    """
    Attributes:
        marketing_opt_in (bool):
        consent_text_version (int | None | Unset): As on `PUT`.
    """

    marketing_opt_in: bool
    consent_text_version: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        marketing_opt_in = self.marketing_opt_in

        consent_text_version: int | None | Unset
        if isinstance(self.consent_text_version, Unset):
            consent_text_version = UNSET
        else:
            consent_text_version = self.consent_text_version

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "marketing_opt_in": marketing_opt_in,
            }
        )
        if consent_text_version is not UNSET:
            field_dict["consent_text_version"] = consent_text_version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        marketing_opt_in = d.pop("marketing_opt_in")

        def _parse_consent_text_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        consent_text_version = _parse_consent_text_version(
            d.pop("consent_text_version", UNSET)
        )

        patch_follow_body = cls(
            marketing_opt_in=marketing_opt_in,
            consent_text_version=consent_text_version,
        )

        return patch_follow_body
