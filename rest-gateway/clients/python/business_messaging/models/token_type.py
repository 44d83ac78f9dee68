from typing import Literal

TokenType = Literal["Bearer"]

TOKEN_TYPE_VALUES: set[TokenType] = {
    "Bearer",
}


def check_token_type(value: str) -> TokenType:
    if value in TOKEN_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {TOKEN_TYPE_VALUES!r}"
    )
