from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TemplateVariable")


@_attrs_define
class TemplateVariable:
    """A variable: the longest value a send may give it.

    Attributes:
        max_length (int | None | Unset): 1 to 1,000 characters: required. Example: 20.
    """

    max_length: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_length: int | None | Unset
        if isinstance(self.max_length, Unset):
            max_length = UNSET
        else:
            max_length = self.max_length

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_length is not UNSET:
            field_dict["max_length"] = max_length

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_max_length(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_length = _parse_max_length(d.pop("max_length", UNSET))

        template_variable = cls(
            max_length=max_length,
        )

        return template_variable
