from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.render_template_body_variables import RenderTemplateBodyVariables


T = TypeVar("T", bound="RenderTemplateBody")


@_attrs_define
class RenderTemplateBody:
    """A preview: what a send with these variables would carry.

    Attributes:
        variables (RenderTemplateBodyVariables): Every variable of the template, each a string. Example: {'order_id':
            'A-1042'}.
        locale (None | str | Unset): A BCP 47 tag (by lookup); default: the template's default locale. Example: pt-BR.
        version (int | None | Unset): Default: the newest.
    """

    variables: RenderTemplateBodyVariables
    locale: None | str | Unset = UNSET
    version: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        variables = self.variables.to_dict()

        locale: None | str | Unset
        if isinstance(self.locale, Unset):
            locale = UNSET
        else:
            locale = self.locale

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "variables": variables,
            }
        )
        if locale is not UNSET:
            field_dict["locale"] = locale
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.render_template_body_variables import (
            RenderTemplateBodyVariables,  # noqa: PLC0415
        )

        d = dict(src_dict)
        variables = RenderTemplateBodyVariables.from_dict(d.pop("variables"))

        def _parse_locale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        locale = _parse_locale(d.pop("locale", UNSET))

        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        version = _parse_version(d.pop("version", UNSET))

        render_template_body = cls(
            variables=variables,
            locale=locale,
            version=version,
        )

        return render_template_body
