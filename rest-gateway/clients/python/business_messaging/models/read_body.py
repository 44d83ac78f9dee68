from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="ReadBody")


@_attrs_define
class ReadBody:
    """Where a read mark stands.

    Attributes:
        up_to (UUID): The newest message read.
    """

    up_to: UUID

    def to_dict(self) -> dict[str, Any]:
        up_to = str(self.up_to)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "up_to": up_to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        up_to = UUID(d.pop("up_to"))

        read_body = cls(
            up_to=up_to,
        )

        return read_body
