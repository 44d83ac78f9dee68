from typing import Literal

WebhookPayloadWebhookTestDataType = Literal["webhook.test"]

WEBHOOK_PAYLOAD_WEBHOOK_TEST_DATA_TYPE_VALUES: set[
    WebhookPayloadWebhookTestDataType
] = {
    "webhook.test",
}


def check_webhook_payload_webhook_test_data_type(
    value: str,
) -> WebhookPayloadWebhookTestDataType:
    if value in WEBHOOK_PAYLOAD_WEBHOOK_TEST_DATA_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_PAYLOAD_WEBHOOK_TEST_DATA_TYPE_VALUES!r}"
    )
