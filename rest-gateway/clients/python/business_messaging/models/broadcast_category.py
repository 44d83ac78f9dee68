from typing import Literal

BroadcastCategory = Literal["marketing", "utility"]

BROADCAST_CATEGORY_VALUES: set[BroadcastCategory] = {
    "marketing",
    "utility",
}


def check_broadcast_category(value: str) -> BroadcastCategory:
    if value in BROADCAST_CATEGORY_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {BROADCAST_CATEGORY_VALUES!r}"
    )
