from typing import Literal

FollowStatus = Literal["active", "unfollowed"]

FOLLOW_STATUS_VALUES: set[FollowStatus] = {
    "active",
    "unfollowed",
}


def check_follow_status(value: str) -> FollowStatus:
    if value in FOLLOW_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {FOLLOW_STATUS_VALUES!r}"
    )
