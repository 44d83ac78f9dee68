from typing import Literal

BusinessStatus = Literal["active", "suspended"]

BUSINESS_STATUS_VALUES: set[BusinessStatus] = {
    "active",
    "suspended",
}


def check_business_status(value: str) -> BusinessStatus:
    if value in BUSINESS_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {BUSINESS_STATUS_VALUES!r}"
    )
