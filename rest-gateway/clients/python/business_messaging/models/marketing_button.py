from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="MarketingButton")


@_attrs_define
class MarketingButton:
    """
    Attributes:
        label (str): 1 to 40 characters, not only spaces.
        url (str): An https URL.
    """

    label: str
    url: str

    def to_dict(self) -> dict[str, Any]:
        label = self.label

        url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "label": label,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        label = d.pop("label")

        url = d.pop("url")

        marketing_button = cls(
            label=label,
            url=url,
        )

        return marketing_button
