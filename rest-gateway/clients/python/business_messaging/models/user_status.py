from typing import Literal

UserStatus = Literal["active", "banned", "erased", "suspended"]

USER_STATUS_VALUES: set[UserStatus] = {
    "active",
    "banned",
    "erased",
    "suspended",
}


def check_user_status(value: str) -> UserStatus:
    if value in USER_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {USER_STATUS_VALUES!r}"
    )
