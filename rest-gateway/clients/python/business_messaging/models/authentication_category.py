from typing import Literal

AuthenticationCategory = Literal["authentication"]

AUTHENTICATION_CATEGORY_VALUES: set[AuthenticationCategory] = {
    "authentication",
}


def check_authentication_category(value: str) -> AuthenticationCategory:
    if value in AUTHENTICATION_CATEGORY_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {AUTHENTICATION_CATEGORY_VALUES!r}"
    )
