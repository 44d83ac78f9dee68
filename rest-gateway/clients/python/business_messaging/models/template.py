from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.broadcast_category import BroadcastCategory, check_broadcast_category
from ..models.template_status import TemplateStatus, check_template_status

if TYPE_CHECKING:
    from ..models.template_variables import TemplateVariables
    from ..models.template_variants import TemplateVariants


T = TypeVar("T", bound="Template")


@_attrs_define
class Template:
    """A template at one version.

    Attributes:
        category (BroadcastCategory): What a broadcast may send.
        created_at (datetime.datetime): When this version was made.
        default_locale (str):  Example: en.
        id (UUID):
        name (str):
        status (TemplateStatus): A template's status.
        variables (TemplateVariables):  Example: {'order_id': {'max_length': 20}}.
        variants (TemplateVariants): By canonical BCP 47 locale. Example: {'en': {'body': 'Order {{order_id}} has
            shipped.'}, 'pt-BR': {'body': 'O pedido {{order_id}} foi enviado.'}}.
        version (int):
    """

    category: BroadcastCategory
    created_at: datetime.datetime
    default_locale: str
    id: UUID
    name: str
    status: TemplateStatus
    variables: TemplateVariables
    variants: TemplateVariants
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        category: str = self.category

        created_at = self.created_at.isoformat()

        default_locale = self.default_locale

        id = str(self.id)

        name = self.name

        status: str = self.status

        variables = self.variables.to_dict()

        variants = self.variants.to_dict()

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "category": category,
                "created_at": created_at,
                "default_locale": default_locale,
                "id": id,
                "name": name,
                "status": status,
                "variables": variables,
                "variants": variants,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template_variables import TemplateVariables  # noqa: PLC0415
        from ..models.template_variants import TemplateVariants  # noqa: PLC0415

        d = dict(src_dict)
        category = check_broadcast_category(d.pop("category"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        default_locale = d.pop("default_locale")

        id = UUID(d.pop("id"))

        name = d.pop("name")

        status = check_template_status(d.pop("status"))

        variables = TemplateVariables.from_dict(d.pop("variables"))

        variants = TemplateVariants.from_dict(d.pop("variants"))

        version = d.pop("version")

        template = cls(
            category=category,
            created_at=created_at,
            default_locale=default_locale,
            id=id,
            name=name,
            status=status,
            variables=variables,
            variants=variants,
            version=version,
        )

        template.additional_properties = d
        return template

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
