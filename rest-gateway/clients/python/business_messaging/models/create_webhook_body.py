from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.event_type import EventType, check_event_type

T = TypeVar("T", bound="CreateWebhookBody")


@_attrs_define
class CreateWebhookBody:
    """
    Attributes:
        events (list[EventType]):
        url (str): An absolute https URL (http only where the operator allows it), no credentials. Example:
            https://hooks.acme.example/messaging.
    """

    events: list[EventType]
    url: str

    def to_dict(self) -> dict[str, Any]:
        events = []
        for componentsschemas_event_type_list_item_data in self.events:
            componentsschemas_event_type_list_item: str = (
                componentsschemas_event_type_list_item_data
            )
            events.append(componentsschemas_event_type_list_item)

        url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "events": events,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        events = []
        _events = d.pop("events")
        for componentsschemas_event_type_list_item_data in _events:
            componentsschemas_event_type_list_item = check_event_type(
                componentsschemas_event_type_list_item_data
            )

            events.append(componentsschemas_event_type_list_item)

        url = d.pop("url")

        create_webhook_body = cls(
            events=events,
            url=url,
        )

        return create_webhook_body
