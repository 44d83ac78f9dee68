from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.template import Template


T = TypeVar("T", bound="TemplateList")


@_attrs_define
class TemplateList:
    """
    Attributes:
        has_more (bool): Whether more follow: ask again with `starting_after` = the last `id`.
        templates (list[Template]):
    """

    has_more: bool
    templates: list[Template]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_more = self.has_more

        templates = []
        for templates_item_data in self.templates:
            templates_item = templates_item_data.to_dict()
            templates.append(templates_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "has_more": has_more,
                "templates": templates,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template import Template  # noqa: PLC0415

        d = dict(src_dict)
        has_more = d.pop("has_more")

        templates = []
        _templates = d.pop("templates")
        for templates_item_data in _templates:
            templates_item = Template.from_dict(templates_item_data)

            templates.append(templates_item)

        template_list = cls(
            has_more=has_more,
            templates=templates,
        )

        template_list.additional_properties = d
        return template_list

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
