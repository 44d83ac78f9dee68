from typing import Literal

ChangeSource = Literal["erasure", "operator", "user"]

CHANGE_SOURCE_VALUES: set[ChangeSource] = {
    "erasure",
    "operator",
    "user",
}


def check_change_source(value: str) -> ChangeSource:
    if value in CHANGE_SOURCE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CHANGE_SOURCE_VALUES!r}"
    )
