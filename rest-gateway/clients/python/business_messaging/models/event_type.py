from typing import Literal

EventType = Literal[
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
]

EVENT_TYPE_VALUES: set[EventType] = {
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
}


def check_event_type(value: str) -> EventType:
    if value in EVENT_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {EVENT_TYPE_VALUES!r}"
    )
