from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="UpdateBusinessBody")


@_attrs_define
class UpdateBusinessBody:
    """Changes to the business account. An absent `category` or `website_url` is unchanged; `null`
    clears it.

        Attributes:
            business_name (str): 1 to 100 characters once trimmed. Example: Acme Coffee.
            category (None | str | Unset):  Example: Coffee shop.
            website_url (None | str | Unset): An absolute http or https URL. Example: https://acme.example.
    """

    business_name: str
    category: None | str | Unset = UNSET
    website_url: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        business_name = self.business_name

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        else:
            category = self.category

        website_url: None | str | Unset
        if isinstance(self.website_url, Unset):
            website_url = UNSET
        else:
            website_url = self.website_url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "business_name": business_name,
            }
        )
        if category is not UNSET:
            field_dict["category"] = category
        if website_url is not UNSET:
            field_dict["website_url"] = website_url

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        business_name = d.pop("business_name")

        def _parse_category(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        def _parse_website_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        website_url = _parse_website_url(d.pop("website_url", UNSET))

        update_business_body = cls(
            business_name=business_name,
            category=category,
            website_url=website_url,
        )

        return update_business_body
