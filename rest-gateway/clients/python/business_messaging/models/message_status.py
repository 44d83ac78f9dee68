from typing import Literal

MessageStatus = Literal["accepted", "canceled", "delivered", "failed", "scheduled"]

MESSAGE_STATUS_VALUES: set[MessageStatus] = {
    "accepted",
    "canceled",
    "delivered",
    "failed",
    "scheduled",
}


def check_message_status(value: str) -> MessageStatus:
    if value in MESSAGE_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MESSAGE_STATUS_VALUES!r}"
    )
