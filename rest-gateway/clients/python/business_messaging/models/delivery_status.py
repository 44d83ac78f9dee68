from typing import Literal

DeliveryStatus = Literal["failed", "pending", "retrying", "succeeded"]

DELIVERY_STATUS_VALUES: set[DeliveryStatus] = {
    "failed",
    "pending",
    "retrying",
    "succeeded",
}


def check_delivery_status(value: str) -> DeliveryStatus:
    if value in DELIVERY_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {DELIVERY_STATUS_VALUES!r}"
    )
