from typing import Literal

WebhookPayloadUserRedactedDataType = Literal["user.redacted"]

WEBHOOK_PAYLOAD_USER_REDACTED_DATA_TYPE_VALUES: set[
    WebhookPayloadUserRedactedDataType
] = {
    "user.redacted",
}


def check_webhook_payload_user_redacted_data_type(
    value: str,
) -> WebhookPayloadUserRedactedDataType:
    if value in WEBHOOK_PAYLOAD_USER_REDACTED_DATA_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_PAYLOAD_USER_REDACTED_DATA_TYPE_VALUES!r}"
    )
