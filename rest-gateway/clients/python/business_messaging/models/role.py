from typing import Literal

Role = Literal["admin", "member", "owner"]

ROLE_VALUES: set[Role] = {
    "admin",
    "member",
    "owner",
}


def check_role(value: str) -> Role:
    if value in ROLE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ROLE_VALUES!r}")
