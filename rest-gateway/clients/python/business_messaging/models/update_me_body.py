from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="UpdateMeBody")


@_attrs_define
class UpdateMeBody:
    """Changes to the signed-in user's own settings. Absent fields stay.

    Attributes:
        display_name (None | str | Unset): 0 to 64 characters, shown to a business only in the conversations you
            started; `null` or
            empty clears it. Example: Sam.
        language (None | str | Unset): Your language, a BCP 47 tag (`pt-BR`): businesses you follow send you their
            templates'
            variant for it (or the nearest, `pt`). `null` or empty clears it. No business reads it. Example: pt-BR.
        read_receipts (bool | None | Unset): Whether businesses see when you read their messages (default true).
        webhook_alerts (bool | None | Unset): Whether you get an SMS when a webhook endpoint of your business turns
            failing (owners
            and admins; default true).
    """

    display_name: None | str | Unset = UNSET
    language: None | str | Unset = UNSET
    read_receipts: bool | None | Unset = UNSET
    webhook_alerts: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
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

        read_receipts: bool | None | Unset
        if isinstance(self.read_receipts, Unset):
            read_receipts = UNSET
        else:
            read_receipts = self.read_receipts

        webhook_alerts: bool | None | Unset
        if isinstance(self.webhook_alerts, Unset):
            webhook_alerts = UNSET
        else:
            webhook_alerts = self.webhook_alerts

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if display_name is not UNSET:
            field_dict["display_name"] = display_name
        if language is not UNSET:
            field_dict["language"] = language
        if read_receipts is not UNSET:
            field_dict["read_receipts"] = read_receipts
        if webhook_alerts is not UNSET:
            field_dict["webhook_alerts"] = webhook_alerts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

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

        def _parse_read_receipts(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        read_receipts = _parse_read_receipts(d.pop("read_receipts", UNSET))

        def _parse_webhook_alerts(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        webhook_alerts = _parse_webhook_alerts(d.pop("webhook_alerts", UNSET))

        update_me_body = cls(
            display_name=display_name,
            language=language,
            read_receipts=read_receipts,
            webhook_alerts=webhook_alerts,
        )

        return update_me_body
