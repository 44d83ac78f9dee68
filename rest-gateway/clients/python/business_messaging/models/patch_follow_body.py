from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PatchFollowBody")


@_attrs_define
class PatchFollowBody:
    """
    Attributes:
        marketing_opt_in (bool):
    """

    marketing_opt_in: bool

    def to_dict(self) -> dict[str, Any]:
        marketing_opt_in = self.marketing_opt_in

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "marketing_opt_in": marketing_opt_in,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        marketing_opt_in = d.pop("marketing_opt_in")

        patch_follow_body = cls(
            marketing_opt_in=marketing_opt_in,
        )

        return patch_follow_body
