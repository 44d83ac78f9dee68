from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.role import Role, check_role
from ..models.user_status import UserStatus, check_user_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="Me")


@_attrs_define
class Me:
    """Who is signed in.

    Attributes:
        phone_number (str):  Example: +14155550123.
        read_receipts (bool): Whether businesses see when the user read their messages.
        status (UserStatus): A user account's status.
        user_id (UUID):
        webhook_alerts (bool): Whether you get an SMS when a webhook endpoint of your business turns failing (owners
            and admins; at most one per endpoint per 24 h).
        business_account_id (None | Unset | UUID): The business the user owns or belongs to; `null` without one.
        display_name (None | str | Unset): Shown to a business only in the conversations the user started; `null`
            without one.
        language (None | str | Unset): Your own language (a BCP 47 tag, canonical): the variant of a template that
            businesses
            you follow send you; `null` when not set. Example: pt-BR.
        role (None | Role | Unset):
    """

    phone_number: str
    read_receipts: bool
    status: UserStatus
    user_id: UUID
    webhook_alerts: bool
    business_account_id: None | Unset | UUID = UNSET
    display_name: None | str | Unset = UNSET
    language: None | str | Unset = UNSET
    role: None | Role | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        phone_number = self.phone_number

        read_receipts = self.read_receipts

        status: str = self.status

        user_id = str(self.user_id)

        webhook_alerts = self.webhook_alerts

        business_account_id: None | str | Unset
        if isinstance(self.business_account_id, Unset):
            business_account_id = UNSET
        elif isinstance(self.business_account_id, UUID):
            business_account_id = str(self.business_account_id)
        else:
            business_account_id = self.business_account_id

        display_name: None | str | Unset
        if isinstance(self.display_name, Unset):
            display_name = UNSET
        else:
            display_name = self.display_name

        language: None | str | Unset
        if isinstance(self.language, Unset):
            language = UNSET
        else:
            language = self.language

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        elif isinstance(self.role, str):
            role = self.role
        else:
            role = self.role

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "phone_number": phone_number,
                "read_receipts": read_receipts,
                "status": status,
                "user_id": user_id,
                "webhook_alerts": webhook_alerts,
            }
        )
        if business_account_id is not UNSET:
            field_dict["business_account_id"] = business_account_id
        if display_name is not UNSET:
            field_dict["display_name"] = display_name
        if language is not UNSET:
            field_dict["language"] = language
        if role is not UNSET:
            field_dict["role"] = role

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        phone_number = d.pop("phone_number")

        read_receipts = d.pop("read_receipts")

        status = check_user_status(d.pop("status"))

        user_id = UUID(d.pop("user_id"))

        webhook_alerts = d.pop("webhook_alerts")

        def _parse_business_account_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                business_account_id_type_0 = UUID(data)

                return business_account_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        business_account_id = _parse_business_account_id(
            d.pop("business_account_id", UNSET)
        )

        def _parse_display_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_name = _parse_display_name(d.pop("display_name", UNSET))

        def _parse_language(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        language = _parse_language(d.pop("language", UNSET))

        def _parse_role(data: object) -> None | Role | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_0 = check_role(data)

                return role_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Role | Unset, data)

        role = _parse_role(d.pop("role", UNSET))

        me = cls(
            phone_number=phone_number,
            read_receipts=read_receipts,
            status=status,
            user_id=user_id,
            webhook_alerts=webhook_alerts,
            business_account_id=business_account_id,
            display_name=display_name,
            language=language,
            role=role,
        )

        me.additional_properties = d
        return me

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
