from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LookupResult")


@_attrs_define
class LookupResult:
    """What the look-up says of one number.

    Attributes:
        follows (bool): Whether it follows the business now.
        marketing_opt_in (bool):
        phone_number (str): The number in E.164. Example: +14155550123.
        user_id (None | Unset | UUID): Only for a number that follows or once followed the business.
    """

    follows: bool
    marketing_opt_in: bool
    phone_number: str
    user_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        follows = self.follows

        marketing_opt_in = self.marketing_opt_in

        phone_number = self.phone_number

        user_id: None | str | Unset
        if isinstance(self.user_id, Unset):
            user_id = UNSET
        elif isinstance(self.user_id, UUID):
            user_id = str(self.user_id)
        else:
            user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "follows": follows,
                "marketing_opt_in": marketing_opt_in,
                "phone_number": phone_number,
            }
        )
        if user_id is not UNSET:
            field_dict["user_id"] = user_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        follows = d.pop("follows")

        marketing_opt_in = d.pop("marketing_opt_in")

        phone_number = d.pop("phone_number")

        def _parse_user_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                user_id_type_0 = UUID(data)

                return user_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        user_id = _parse_user_id(d.pop("user_id", UNSET))

        lookup_result = cls(
            follows=follows,
            marketing_opt_in=marketing_opt_in,
            phone_number=phone_number,
            user_id=user_id,
        )

        lookup_result.additional_properties = d
        return lookup_result

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
