from typing import Literal

AssignableRole = Literal["admin", "member"]

ASSIGNABLE_ROLE_VALUES: set[AssignableRole] = {
    "admin",
    "member",
}


def check_assignable_role(value: str) -> AssignableRole:
    if value in ASSIGNABLE_ROLE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {ASSIGNABLE_ROLE_VALUES!r}"
    )
