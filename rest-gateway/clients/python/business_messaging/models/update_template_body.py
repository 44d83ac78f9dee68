from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.update_template_body_variables_type_0 import (
        UpdateTemplateBodyVariablesType0,
    )
    from ..models.update_template_body_variants_type_0 import (
        UpdateTemplateBodyVariantsType0,
    )


T = TypeVar("T", bound="UpdateTemplateBody")


@_attrs_define
class UpdateTemplateBody:
    """A new version: what is given replaces the newest version's.

    Attributes:
        category (None | str | Unset): Refused: a template's category never changes.
        default_locale (None | str | Unset):
        name (None | str | Unset): Refused: a template's name never changes.
        variables (None | Unset | UpdateTemplateBodyVariablesType0):
        variants (None | Unset | UpdateTemplateBodyVariantsType0):
    """

    category: None | str | Unset = UNSET
    default_locale: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    variables: None | Unset | UpdateTemplateBodyVariablesType0 = UNSET
    variants: None | Unset | UpdateTemplateBodyVariantsType0 = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.update_template_body_variables_type_0 import (
            UpdateTemplateBodyVariablesType0,  # noqa: PLC0415
        )
        from ..models.update_template_body_variants_type_0 import (
            UpdateTemplateBodyVariantsType0,  # noqa: PLC0415
        )

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        else:
            category = self.category

        default_locale: None | str | Unset
        if isinstance(self.default_locale, Unset):
            default_locale = UNSET
        else:
            default_locale = self.default_locale

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        variables: dict[str, Any] | None | Unset
        if isinstance(self.variables, Unset):
            variables = UNSET
        elif isinstance(self.variables, UpdateTemplateBodyVariablesType0):
            variables = self.variables.to_dict()
        else:
            variables = self.variables

        variants: dict[str, Any] | None | Unset
        if isinstance(self.variants, Unset):
            variants = UNSET
        elif isinstance(self.variants, UpdateTemplateBodyVariantsType0):
            variants = self.variants.to_dict()
        else:
            variants = self.variants

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if category is not UNSET:
            field_dict["category"] = category
        if default_locale is not UNSET:
            field_dict["default_locale"] = default_locale
        if name is not UNSET:
            field_dict["name"] = name
        if variables is not UNSET:
            field_dict["variables"] = variables
        if variants is not UNSET:
            field_dict["variants"] = variants

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.update_template_body_variables_type_0 import (
            UpdateTemplateBodyVariablesType0,  # noqa: PLC0415
        )
        from ..models.update_template_body_variants_type_0 import (
            UpdateTemplateBodyVariantsType0,  # noqa: PLC0415
        )

        d = dict(src_dict)

        def _parse_category(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        def _parse_default_locale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        default_locale = _parse_default_locale(d.pop("default_locale", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_variables(
            data: object,
        ) -> None | Unset | UpdateTemplateBodyVariablesType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                variables_type_0 = UpdateTemplateBodyVariablesType0.from_dict(data)

                return variables_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UpdateTemplateBodyVariablesType0, data)

        variables = _parse_variables(d.pop("variables", UNSET))

        def _parse_variants(
            data: object,
        ) -> None | Unset | UpdateTemplateBodyVariantsType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                variants_type_0 = UpdateTemplateBodyVariantsType0.from_dict(data)

                return variants_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UpdateTemplateBodyVariantsType0, data)

        variants = _parse_variants(d.pop("variants", UNSET))

        update_template_body = cls(
            category=category,
            default_locale=default_locale,
            name=name,
            variables=variables,
            variants=variants,
        )

        return update_template_body
