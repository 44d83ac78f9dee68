from typing import Literal

MarketingCategory = Literal["marketing"]

MARKETING_CATEGORY_VALUES: set[MarketingCategory] = {
    "marketing",
}


def check_marketing_category(value: str) -> MarketingCategory:
    if value in MARKETING_CATEGORY_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MARKETING_CATEGORY_VALUES!r}"
    )
