from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.marketing_button import MarketingButton


T = TypeVar("T", bound="MarketingContent")


@_attrs_define
class MarketingContent:
    """
    Attributes:
        text (str): 1 to 4096 characters, not only spaces. Example: 20% off this weekend.
        buttons (list[MarketingButton] | Unset): Up to 3.
        image_url (str | Unset): An https URL.
        title (str | Unset): 1 to 200 characters, not only spaces.
    """

    text: str
    buttons: list[MarketingButton] | Unset = UNSET
    image_url: str | Unset = UNSET
    title: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        buttons: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.buttons, Unset):
            buttons = []
            for buttons_item_data in self.buttons:
                buttons_item = buttons_item_data.to_dict()
                buttons.append(buttons_item)

        image_url = self.image_url

        title = self.title

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "text": text,
            }
        )
        if buttons is not UNSET:
            field_dict["buttons"] = buttons
        if image_url is not UNSET:
            field_dict["image_url"] = image_url
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.marketing_button import MarketingButton  # noqa: PLC0415

        d = dict(src_dict)
        text = d.pop("text")

        _buttons = d.pop("buttons", UNSET)
        buttons: list[MarketingButton] | Unset = UNSET
        if _buttons is not UNSET:
            buttons = []
            for buttons_item_data in _buttons:
                buttons_item = MarketingButton.from_dict(buttons_item_data)

                buttons.append(buttons_item)

        image_url = d.pop("image_url", UNSET)

        title = d.pop("title", UNSET)

        marketing_content = cls(
            text=text,
            buttons=buttons,
            image_url=image_url,
            title=title,
        )

        return marketing_content
