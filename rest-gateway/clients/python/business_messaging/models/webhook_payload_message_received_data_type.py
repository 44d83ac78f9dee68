from typing import Literal

WebhookPayloadMessageReceivedDataType = Literal["message.received"]

WEBHOOK_PAYLOAD_MESSAGE_RECEIVED_DATA_TYPE_VALUES: set[
    WebhookPayloadMessageReceivedDataType
] = {
    "message.received",
}


def check_webhook_payload_message_received_data_type(
    value: str,
) -> WebhookPayloadMessageReceivedDataType:
    if value in WEBHOOK_PAYLOAD_MESSAGE_RECEIVED_DATA_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_PAYLOAD_MESSAGE_RECEIVED_DATA_TYPE_VALUES!r}"
    )
