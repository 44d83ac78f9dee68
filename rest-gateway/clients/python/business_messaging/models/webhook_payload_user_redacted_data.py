from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.webhook_payload_user_redacted_data_type import (
    WebhookPayloadUserRedactedDataType,
    check_webhook_payload_user_redacted_data_type,
)

if TYPE_CHECKING:
    from ..models.user_redacted_data import UserRedactedData


T = TypeVar("T", bound="WebhookPayloadUserRedactedData")


@_attrs_define
class WebhookPayloadUserRedactedData:
    """What a webhook delivery carries: the same envelope for every event, `data` per event.

    Attributes:
        created_at (datetime.datetime): When the event happened.
        data (UserRedactedData): `user.redacted`: a user the business knew (sent a message to, heard from, or had as a
            follower) was erased on their request. Their number, what they wrote and what was sent to
            them are gone from the business's history, conversations, events and deliveries; the
            consent ledger and message metadata stay, by `user_id`. Delete your own copies.
        delivery_id (UUID): The delivery's id, the same on every retry (also `X-Service-Delivery`): deduplicate on it.
        event_id (UUID): The event's id: the same for every endpoint's delivery and every attempt of one event.
        id (UUID): New for every attempt.
        type_ (WebhookPayloadUserRedactedDataType): The event type, also in `X-Service-Event`.
    """

    created_at: datetime.datetime
    data: UserRedactedData
    delivery_id: UUID
    event_id: UUID
    id: UUID
    type_: WebhookPayloadUserRedactedDataType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        data = self.data.to_dict()

        delivery_id = str(self.delivery_id)

        event_id = str(self.event_id)

        id = str(self.id)

        type_: str = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "data": data,
                "delivery_id": delivery_id,
                "event_id": event_id,
                "id": id,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.user_redacted_data import UserRedactedData  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        data = UserRedactedData.from_dict(d.pop("data"))

        delivery_id = UUID(d.pop("delivery_id"))

        event_id = UUID(d.pop("event_id"))

        id = UUID(d.pop("id"))

        type_ = check_webhook_payload_user_redacted_data_type(d.pop("type"))

        webhook_payload_user_redacted_data = cls(
            created_at=created_at,
            data=data,
            delivery_id=delivery_id,
            event_id=event_id,
            id=id,
            type_=type_,
        )

        webhook_payload_user_redacted_data.additional_properties = d
        return webhook_payload_user_redacted_data

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
