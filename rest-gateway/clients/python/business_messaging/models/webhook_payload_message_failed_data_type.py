from typing import Literal

WebhookPayloadMessageFailedDataType = Literal["message.failed"]

WEBHOOK_PAYLOAD_MESSAGE_FAILED_DATA_TYPE_VALUES: set[
    WebhookPayloadMessageFailedDataType
] = {
    "message.failed",
}


def check_webhook_payload_message_failed_data_type(
    value: str,
) -> WebhookPayloadMessageFailedDataType:
    if value in WEBHOOK_PAYLOAD_MESSAGE_FAILED_DATA_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_PAYLOAD_MESSAGE_FAILED_DATA_TYPE_VALUES!r}"
    )
