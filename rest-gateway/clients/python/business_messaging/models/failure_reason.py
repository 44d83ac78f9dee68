from typing import Literal

FailureReason = Literal[
    "business_not_live",
    "canceled",
    "consent_withdrawn",
    "expired",
    "provider_rejected",
    "provider_timeout",
    "provider_unavailable",
    "provider_unreachable",
    "recipient_erased",
    "recipient_inactive",
]

FAILURE_REASON_VALUES: set[FailureReason] = {
    "business_not_live",
    "canceled",
    "consent_withdrawn",
    "expired",
    "provider_rejected",
    "provider_timeout",
    "provider_unavailable",
    "provider_unreachable",
    "recipient_erased",
    "recipient_inactive",
}


def check_failure_reason(value: str) -> FailureReason:
    if value in FAILURE_REASON_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {FAILURE_REASON_VALUES!r}"
    )
