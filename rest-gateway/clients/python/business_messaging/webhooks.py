"""Verifying a webhook delivery before trusting it. (Written by hand.)

Each delivery is signed twice over, and :func:`verify_webhook` accepts either:

* ``X-Service-Signature: t=<unix seconds>,v1=<hex>``: HMAC-SHA256 of ``"<t>." + raw body``
  keyed with the UTF-8 bytes of the endpoint's whole secret (every endpoint);
* Standard Webhooks: ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature:
  v1,<base64>``: HMAC-SHA256 of ``"<id>.<timestamp>." + raw body`` keyed with the
  base64-decoded part of the secret after ``whsec_`` (endpoints whose secret has that form).

During a secret rotation's grace each header carries one signature per secret: give the
secrets you hold (new and old) and any one matching is enough.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

from .exceptions import WebhookVerificationError

__all__ = ["verify_webhook", "DEFAULT_TOLERANCE_SECONDS"]

DEFAULT_TOLERANCE_SECONDS = 300


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    getter = getattr(headers, "get", None)
    value = getter(name) if getter is not None else None
    if value is None:
        for key, candidate in headers.items():
            if key.lower() == name:
                value = candidate
                break
    if isinstance(value, (list, tuple)):
        value = ",".join(str(v) for v in value)
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return value


def _timestamp(raw: str, now: float, tolerance: int) -> int:
    if not raw.isdigit():
        raise WebhookVerificationError(f"the signature's timestamp {raw!r} is not a number")
    t = int(raw)
    if abs(now - t) > tolerance:
        raise WebhookVerificationError(
            f"the signature's timestamp is {int(now - t)} s from this clock "
            f"(tolerance {tolerance} s): a replay, or a clock to fix"
        )
    return t


def _service_signature(header: str, body: bytes, secrets: list[str], now: float, tolerance: int) -> bool:
    t_raw: str | None = None
    candidates: list[str] = []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            t_raw = value
        elif key == "v1":
            candidates.append(value)
    if t_raw is None or not candidates:
        raise WebhookVerificationError("X-Service-Signature has no t or no v1")
    _timestamp(t_raw, now, tolerance)
    signed = t_raw.encode() + b"." + body
    for secret in secrets:
        expected = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
        if any(hmac.compare_digest(expected, candidate) for candidate in candidates):
            return True
    return False


def _standard_key(secret: str) -> bytes | None:
    if not secret.startswith("whsec_"):
        return None
    try:
        return base64.b64decode(secret[len("whsec_") :], validate=True)
    except (binascii.Error, ValueError):
        return None  # a secret of the older form: it signs X-Service-Signature only


def _standard_signature(
    msg_id: str, ts: str, header: str, body: bytes, secrets: list[str], now: float, tolerance: int
) -> bool:
    _timestamp(ts, now, tolerance)
    candidates = [s.partition(",")[2] for s in header.split() if s.startswith("v1,")]
    signed = f"{msg_id}.{ts}.".encode() + body
    for secret in secrets:
        key = _standard_key(secret)
        if key is None:
            continue
        expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        if any(hmac.compare_digest(expected, candidate) for candidate in candidates):
            return True
    return False


def verify_webhook(
    body: bytes | str,
    headers: Mapping[str, Any],
    secret: str | Iterable[str],
    *,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> dict[str, Any]:
    """Checks a delivery's signature and returns its parsed payload.

    Args:
        body: the raw request body, exactly as received (not re-serialized JSON).
        headers: the request's headers (any mapping; names are matched case-insensitively).
        secret: the endpoint's secret (``whsec_...``), or several during a rotation.
        tolerance: the largest difference, in seconds, between the signature's time and this
            clock (five minutes by default): older deliveries are refused as replays.
        now: this clock in unix seconds (for tests); the system clock by default.

    Raises:
        WebhookVerificationError: no signature header, a timestamp outside the tolerance, or no
            signature made with any of the secrets. Answer such a request 400 and drop it.
    """
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise WebhookVerificationError("no secret given")
    clock = time.time() if now is None else now

    service = _header(headers, "x-service-signature")
    msg_id = _header(headers, "webhook-id")
    ts = _header(headers, "webhook-timestamp")
    standard = _header(headers, "webhook-signature")
    if service is None and standard is None:
        raise WebhookVerificationError("the request carries no X-Service-Signature or webhook-signature")

    verified = False
    if service is not None:
        verified = _service_signature(service, raw, secrets, clock, tolerance)
    if not verified and standard is not None and msg_id is not None and ts is not None:
        verified = _standard_signature(msg_id, ts, standard, raw, secrets, clock, tolerance)
    if not verified:
        raise WebhookVerificationError("no signature matches the given secret(s)")
    try:
        payload = json.loads(raw)
    except ValueError as err:
        raise WebhookVerificationError(f"the body is not JSON: {err}") from err
    if not isinstance(payload, dict):
        raise WebhookVerificationError("the body is not a JSON object")
    return payload
