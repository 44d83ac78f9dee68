from typing import Literal

WebhookPayloadGrantRevokedDataType = Literal["grant.revoked"]

WEBHOOK_PAYLOAD_GRANT_REVOKED_DATA_TYPE_VALUES: set[
    WebhookPayloadGrantRevokedDataType
] = {
    "grant.revoked",
}


def check_webhook_payload_grant_revoked_data_type(
    value: str,
) -> WebhookPayloadGrantRevokedDataType:
    if value in WEBHOOK_PAYLOAD_GRANT_REVOKED_DATA_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_PAYLOAD_GRANT_REVOKED_DATA_TYPE_VALUES!r}"
    )
