from typing import Literal

WebhookPayloadBroadcastCompletedDataType = Literal["broadcast.completed"]

WEBHOOK_PAYLOAD_BROADCAST_COMPLETED_DATA_TYPE_VALUES: set[
    WebhookPayloadBroadcastCompletedDataType
] = {
    "broadcast.completed",
}


def check_webhook_payload_broadcast_completed_data_type(
    value: str,
) -> WebhookPayloadBroadcastCompletedDataType:
    if value in WEBHOOK_PAYLOAD_BROADCAST_COMPLETED_DATA_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_PAYLOAD_BROADCAST_COMPLETED_DATA_TYPE_VALUES!r}"
    )
