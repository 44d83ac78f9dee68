from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.event_type import EventType, check_event_type
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.webhook_health import WebhookHealth


T = TypeVar("T", bound="Webhook")


@_attrs_define
class Webhook:
    """A webhook endpoint. `secret` is present only in the creation answer.

    Attributes:
        active (bool):
        created_at (datetime.datetime):
        events (list[EventType]):
        health (WebhookHealth): An endpoint's delivery health, kept by the reports of its attempts. A failed attempt is
            any
            attempt not answered 2xx (timeout, connection error, 3xx, 4xx, 5xx); `webhook.test`
            deliveries count for nothing. The service never pauses or disables an endpoint.
        id (UUID):
        updated_at (datetime.datetime):
        url (str):
        previous_secret_expires_at (datetime.datetime | None | Unset): Until when the secret the last rotation replaced
            still signs beside the current one;
            null outside a rotation's grace.
        secret (None | str | Unset):
    """

    active: bool
    created_at: datetime.datetime
    events: list[EventType]
    health: WebhookHealth
    id: UUID
    updated_at: datetime.datetime
    url: str
    previous_secret_expires_at: datetime.datetime | None | Unset = UNSET
    secret: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        active = self.active

        created_at = self.created_at.isoformat()

        events = []
        for componentsschemas_event_type_list_item_data in self.events:
            componentsschemas_event_type_list_item: str = (
                componentsschemas_event_type_list_item_data
            )
            events.append(componentsschemas_event_type_list_item)

        health = self.health.to_dict()

        id = str(self.id)

        updated_at = self.updated_at.isoformat()

        url = self.url

        previous_secret_expires_at: None | str | Unset
        if isinstance(self.previous_secret_expires_at, Unset):
            previous_secret_expires_at = UNSET
        elif isinstance(self.previous_secret_expires_at, datetime.datetime):
            previous_secret_expires_at = self.previous_secret_expires_at.isoformat()
        else:
            previous_secret_expires_at = self.previous_secret_expires_at

        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active": active,
                "created_at": created_at,
                "events": events,
                "health": health,
                "id": id,
                "updated_at": updated_at,
                "url": url,
            }
        )
        if previous_secret_expires_at is not UNSET:
            field_dict["previous_secret_expires_at"] = previous_secret_expires_at
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.webhook_health import WebhookHealth  # noqa: PLC0415

        d = dict(src_dict)
        active = d.pop("active")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        events = []
        _events = d.pop("events")
        for componentsschemas_event_type_list_item_data in _events:
            componentsschemas_event_type_list_item = check_event_type(
                componentsschemas_event_type_list_item_data
            )

            events.append(componentsschemas_event_type_list_item)

        health = WebhookHealth.from_dict(d.pop("health"))

        id = UUID(d.pop("id"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        url = d.pop("url")

        def _parse_previous_secret_expires_at(
            data: object,
        ) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_secret_expires_at_type_0 = datetime.datetime.fromisoformat(
                    data
                )

                return previous_secret_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        previous_secret_expires_at = _parse_previous_secret_expires_at(
            d.pop("previous_secret_expires_at", UNSET)
        )

        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))

        webhook = cls(
            active=active,
            created_at=created_at,
            events=events,
            health=health,
            id=id,
            updated_at=updated_at,
            url=url,
            previous_secret_expires_at=previous_secret_expires_at,
            secret=secret,
        )

        webhook.additional_properties = d
        return webhook

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
