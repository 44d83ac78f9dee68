from typing import Literal

BusinessMode = Literal["live", "sandbox"]

BUSINESS_MODE_VALUES: set[BusinessMode] = {
    "live",
    "sandbox",
}


def check_business_mode(value: str) -> BusinessMode:
    if value in BUSINESS_MODE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {BUSINESS_MODE_VALUES!r}"
    )
