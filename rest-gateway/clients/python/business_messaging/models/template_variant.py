from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.template_variant_message_content_type_0 import (
        TemplateVariantMessageContentType0,
    )


T = TypeVar("T", bound="TemplateVariant")


@_attrs_define
class TemplateVariant:
    """One locale's content: `body` (utility and marketing), or `message_content` (marketing: the
    send's structured content; variables in `text`, `title` and button URLs). Every variant of
    a template is of one kind and uses every variable.

        Attributes:
            body (None | str | Unset): Text with `{{variable}}` placeholders. Example: Order {{order_id}} has shipped..
            message_content (None | TemplateVariantMessageContentType0 | Unset):
    """

    body: None | str | Unset = UNSET
    message_content: None | TemplateVariantMessageContentType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.template_variant_message_content_type_0 import (
            TemplateVariantMessageContentType0,  # noqa: PLC0415
        )

        body: None | str | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        else:
            body = self.body

        message_content: dict[str, Any] | None | Unset
        if isinstance(self.message_content, Unset):
            message_content = UNSET
        elif isinstance(self.message_content, TemplateVariantMessageContentType0):
            message_content = self.message_content.to_dict()
        else:
            message_content = self.message_content

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if body is not UNSET:
            field_dict["body"] = body
        if message_content is not UNSET:
            field_dict["message_content"] = message_content

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template_variant_message_content_type_0 import (
            TemplateVariantMessageContentType0,  # noqa: PLC0415
        )

        d = dict(src_dict)

        def _parse_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

        def _parse_message_content(
            data: object,
        ) -> None | TemplateVariantMessageContentType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                message_content_type_0 = TemplateVariantMessageContentType0.from_dict(
                    data
                )

                return message_content_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TemplateVariantMessageContentType0 | Unset, data)

        message_content = _parse_message_content(d.pop("message_content", UNSET))

        template_variant = cls(
            body=body,
            message_content=message_content,
        )

        return template_variant
