from typing import Literal

WebhookPayloadMessageSentDataType = Literal["message.sent"]

WEBHOOK_PAYLOAD_MESSAGE_SENT_DATA_TYPE_VALUES: set[
    WebhookPayloadMessageSentDataType
] = {
    "message.sent",
}


def check_webhook_payload_message_sent_data_type(
    value: str,
) -> WebhookPayloadMessageSentDataType:
    if value in WEBHOOK_PAYLOAD_MESSAGE_SENT_DATA_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_PAYLOAD_MESSAGE_SENT_DATA_TYPE_VALUES!r}"
    )
