from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rendered_template_message_content_type_0 import (
        RenderedTemplateMessageContentType0,
    )


T = TypeVar("T", bound="RenderedTemplate")


@_attrs_define
class RenderedTemplate:
    """A rendering.

    Attributes:
        locale (str): The variant rendered.
        body (None | str | Unset):
        message_content (None | RenderedTemplateMessageContentType0 | Unset):
    """

    locale: str
    body: None | str | Unset = UNSET
    message_content: None | RenderedTemplateMessageContentType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.rendered_template_message_content_type_0 import (
            RenderedTemplateMessageContentType0,  # noqa: PLC0415
        )

        locale = self.locale

        body: None | str | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        else:
            body = self.body

        message_content: dict[str, Any] | None | Unset
        if isinstance(self.message_content, Unset):
            message_content = UNSET
        elif isinstance(self.message_content, RenderedTemplateMessageContentType0):
            message_content = self.message_content.to_dict()
        else:
            message_content = self.message_content

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "locale": locale,
            }
        )
        if body is not UNSET:
            field_dict["body"] = body
        if message_content is not UNSET:
            field_dict["message_content"] = message_content

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rendered_template_message_content_type_0 import (
            RenderedTemplateMessageContentType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        locale = d.pop("locale")

        def _parse_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

        def _parse_message_content(
            data: object,
        ) -> None | RenderedTemplateMessageContentType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                message_content_type_0 = RenderedTemplateMessageContentType0.from_dict(
                    data
                )

                return message_content_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RenderedTemplateMessageContentType0 | Unset, data)

        message_content = _parse_message_content(d.pop("message_content", UNSET))

        rendered_template = cls(
            locale=locale,
            body=body,
            message_content=message_content,
        )

        rendered_template.additional_properties = d
        return rendered_template

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
