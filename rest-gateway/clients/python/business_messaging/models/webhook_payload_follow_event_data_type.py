from typing import Literal

WebhookPayloadFollowEventDataType = Literal[
    "follow.created", "follow.deleted", "follow.updated"
]

WEBHOOK_PAYLOAD_FOLLOW_EVENT_DATA_TYPE_VALUES: set[
    WebhookPayloadFollowEventDataType
] = {
    "follow.created",
    "follow.deleted",
    "follow.updated",
}


def check_webhook_payload_follow_event_data_type(
    value: str,
) -> WebhookPayloadFollowEventDataType:
    if value in WEBHOOK_PAYLOAD_FOLLOW_EVENT_DATA_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_PAYLOAD_FOLLOW_EVENT_DATA_TYPE_VALUES!r}"
    )
