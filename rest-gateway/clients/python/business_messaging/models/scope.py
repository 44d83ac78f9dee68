from typing import Literal

Scope = Literal["authentication", "marketing", "service", "utility"]

SCOPE_VALUES: set[Scope] = {
    "authentication",
    "marketing",
    "service",
    "utility",
}


def check_scope(value: str) -> Scope:
    if value in SCOPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SCOPE_VALUES!r}")
