from typing import Literal

RecordCategory = Literal["authentication", "marketing", "service", "utility"]

RECORD_CATEGORY_VALUES: set[RecordCategory] = {
    "authentication",
    "marketing",
    "service",
    "utility",
}


def check_record_category(value: str) -> RecordCategory:
    if value in RECORD_CATEGORY_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {RECORD_CATEGORY_VALUES!r}"
    )
