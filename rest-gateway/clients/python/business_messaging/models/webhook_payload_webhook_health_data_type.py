from typing import Literal

WebhookPayloadWebhookHealthDataType = Literal["webhook.failing", "webhook.recovered"]

WEBHOOK_PAYLOAD_WEBHOOK_HEALTH_DATA_TYPE_VALUES: set[
    WebhookPayloadWebhookHealthDataType
] = {
    "webhook.failing",
    "webhook.recovered",
}


def check_webhook_payload_webhook_health_data_type(
    value: str,
) -> WebhookPayloadWebhookHealthDataType:
    if value in WEBHOOK_PAYLOAD_WEBHOOK_HEALTH_DATA_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_PAYLOAD_WEBHOOK_HEALTH_DATA_TYPE_VALUES!r}"
    )
