from typing import Literal

WebhookHealthState = Literal["failing", "healthy", "paused"]

WEBHOOK_HEALTH_STATE_VALUES: set[WebhookHealthState] = {
    "failing",
    "healthy",
    "paused",
}


def check_webhook_health_state(value: str) -> WebhookHealthState:
    if value in WEBHOOK_HEALTH_STATE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WEBHOOK_HEALTH_STATE_VALUES!r}"
    )
