from typing import Literal

WindowState = Literal["closed", "open"]

WINDOW_STATE_VALUES: set[WindowState] = {
    "closed",
    "open",
}


def check_window_state(value: str) -> WindowState:
    if value in WINDOW_STATE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WINDOW_STATE_VALUES!r}"
    )
