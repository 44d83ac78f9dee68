from typing import Literal

ChangeSource = Literal["operator", "user"]

CHANGE_SOURCE_VALUES: set[ChangeSource] = {
    "operator",
    "user",
}


def check_change_source(value: str) -> ChangeSource:
    if value in CHANGE_SOURCE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CHANGE_SOURCE_VALUES!r}"
    )
