from typing import Literal

UtilityCategory = Literal["utility"]

UTILITY_CATEGORY_VALUES: set[UtilityCategory] = {
    "utility",
}


def check_utility_category(value: str) -> UtilityCategory:
    if value in UTILITY_CATEGORY_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {UTILITY_CATEGORY_VALUES!r}"
    )
