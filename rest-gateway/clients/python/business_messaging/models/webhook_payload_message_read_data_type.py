from typing import Literal

WebhookPayloadMessageReadDataType = Literal["message.read"]

WEBHOOK_PAYLOAD_MESSAGE_READ_DATA_TYPE_VALUES: set[
    WebhookPayloadMessageReadDataType
] = {
    "message.read",
}


def check_webhook_payload_message_read_data_type(
    value: str,
) -> WebhookPayloadMessageReadDataType:
    if value in WEBHOOK_PAYLOAD_MESSAGE_READ_DATA_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_PAYLOAD_MESSAGE_READ_DATA_TYPE_VALUES!r}"
    )
