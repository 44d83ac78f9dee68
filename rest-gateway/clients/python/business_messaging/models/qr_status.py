from typing import Literal

QrStatus = Literal["approved", "pending"]

QR_STATUS_VALUES: set[QrStatus] = {
    "approved",
    "pending",
}


def check_qr_status(value: str) -> QrStatus:
    if value in QR_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {QR_STATUS_VALUES!r}")
