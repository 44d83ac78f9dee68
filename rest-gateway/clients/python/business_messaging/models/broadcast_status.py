from typing import Literal

BroadcastStatus = Literal["canceled", "completed", "running", "scheduled"]

BROADCAST_STATUS_VALUES: set[BroadcastStatus] = {
    "canceled",
    "completed",
    "running",
    "scheduled",
}


def check_broadcast_status(value: str) -> BroadcastStatus:
    if value in BROADCAST_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {BROADCAST_STATUS_VALUES!r}"
    )
