from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.template_use_variables import TemplateUseVariables


T = TypeVar("T", bound="TemplateUse")


@_attrs_define
class TemplateUse:
    """A template a send names: rendered when the recipient is known, with the explicit `locale`,
    else the recipient's own language when they follow the business, else the template's
    default (each by RFC 4647 lookup: `pt-BR`, then `pt`). A replay with the same
    Idempotency-Key answers the original; the template and its variables are part of the key's
    content.

        Attributes:
            name (str): The template's name. Example: order_shipped.
            variables (TemplateUseVariables): Every variable of the template, each a string of 1 to its `max_length`
                characters
                (values placed in URLs are percent-encoded). Example: {'order_id': 'A-1042'}.
            locale (None | str | Unset): A BCP 47 tag: the variant to send (by lookup; none found is refused). Example: pt-
                BR.
            version (int | None | Unset): A version (default: the newest).
    """

    name: str
    variables: TemplateUseVariables
    locale: None | str | Unset = UNSET
    version: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

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
                "name": name,
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
        from ..models.template_use_variables import (
            TemplateUseVariables,  # noqa: PLC0415
        )

        d = dict(src_dict)
        name = d.pop("name")

        variables = TemplateUseVariables.from_dict(d.pop("variables"))

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

        template_use = cls(
            name=name,
            variables=variables,
            locale=locale,
            version=version,
        )

        return template_use
