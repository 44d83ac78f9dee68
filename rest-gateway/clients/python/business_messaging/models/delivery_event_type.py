from typing import Literal

DeliveryEventType = Literal[
    "broadcast.completed",
    "follow.created",
    "follow.deleted",
    "follow.updated",
    "grant.revoked",
    "message.failed",
    "message.read",
    "message.received",
    "message.sent",
    "user.redacted",
    "webhook.failing",
    "webhook.recovered",
    "webhook.test",
]

DELIVERY_EVENT_TYPE_VALUES: set[DeliveryEventType] = {
    "broadcast.completed",
    "follow.created",
    "follow.deleted",
    "follow.updated",
    "grant.revoked",
    "message.failed",
    "message.read",
    "message.received",
    "message.sent",
    "user.redacted",
    "webhook.failing",
    "webhook.recovered",
    "webhook.test",
}


def check_delivery_event_type(value: str) -> DeliveryEventType:
    if value in DELIVERY_EVENT_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {DELIVERY_EVENT_TYPE_VALUES!r}"
    )
