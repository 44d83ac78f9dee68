from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.broadcast_category import BroadcastCategory, check_broadcast_category
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_template_body_variables import CreateTemplateBodyVariables
    from ..models.create_template_body_variants import CreateTemplateBodyVariants


T = TypeVar("T", bound="CreateTemplateBody")


@_attrs_define
class CreateTemplateBody:
    """A new template.

    Attributes:
        category (BroadcastCategory): What a broadcast may send.
        default_locale (str): One of the variants' locales. Example: en.
        name (str): Lowercase letters, digits and `_`, 1 to 64; unique in the business for ever (archived
            templates keep theirs). Example: order_shipped.
        variables (CreateTemplateBodyVariables | Unset):  Example: {'order_id': {'max_length': 20}}.
        variants (CreateTemplateBodyVariants | Unset):  Example: {'en': {'body': 'Order {{order_id}} has shipped.'},
            'pt-BR': {'body': 'O pedido {{order_id}} foi enviado.'}}.
    """

    category: BroadcastCategory
    default_locale: str
    name: str
    variables: CreateTemplateBodyVariables | Unset = UNSET
    variants: CreateTemplateBodyVariants | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        default_locale = self.default_locale

        name = self.name

        variables: dict[str, Any] | Unset = UNSET
        if not isinstance(self.variables, Unset):
            variables = self.variables.to_dict()

        variants: dict[str, Any] | Unset = UNSET
        if not isinstance(self.variants, Unset):
            variants = self.variants.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "category": category,
                "default_locale": default_locale,
                "name": name,
            }
        )
        if variables is not UNSET:
            field_dict["variables"] = variables
        if variants is not UNSET:
            field_dict["variants"] = variants

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.create_template_body_variables import (
            CreateTemplateBodyVariables,  # noqa: PLC0415
        )
        from ..models.create_template_body_variants import (
            CreateTemplateBodyVariants,  # noqa: PLC0415
        )

        d = dict(src_dict)
        category = check_broadcast_category(d.pop("category"))

        default_locale = d.pop("default_locale")

        name = d.pop("name")

        _variables = d.pop("variables", UNSET)
        variables: CreateTemplateBodyVariables | Unset
        if isinstance(_variables, Unset):
            variables = UNSET
        else:
            variables = CreateTemplateBodyVariables.from_dict(_variables)

        _variants = d.pop("variants", UNSET)
        variants: CreateTemplateBodyVariants | Unset
        if isinstance(_variants, Unset):
            variants = UNSET
        else:
            variants = CreateTemplateBodyVariants.from_dict(_variants)

        create_template_body = cls(
            category=category,
            default_locale=default_locale,
            name=name,
            variables=variables,
            variants=variants,
        )

        return create_template_body
