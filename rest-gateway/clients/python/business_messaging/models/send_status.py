from typing import Literal

SendStatus = Literal["sent"]

SEND_STATUS_VALUES: set[SendStatus] = {
    "sent",
}


def check_send_status(value: str) -> SendStatus:
    if value in SEND_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SEND_STATUS_VALUES!r}"
    )
