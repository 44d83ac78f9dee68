from typing import Literal

TemplateStatus = Literal["active", "archived"]

TEMPLATE_STATUS_VALUES: set[TemplateStatus] = {
    "active",
    "archived",
}


def check_template_status(value: str) -> TemplateStatus:
    if value in TEMPLATE_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {TEMPLATE_STATUS_VALUES!r}"
    )
