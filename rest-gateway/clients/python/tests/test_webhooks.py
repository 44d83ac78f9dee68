"""verify_webhook against signatures made here, as the service makes them (no server needed)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from business_messaging import WebhookVerificationError, verify_webhook

NOW = 1_764_000_000
BODY = json.dumps({"id": "a", "type": "message.sent", "data": {"status": "delivered"}}).encode()
SECRET = "whsec_" + base64.b64encode(bytes(range(32))).decode()
OTHER = "whsec_" + base64.b64encode(bytes(range(1, 33))).decode()
LEGACY = "whsec_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v"  # the older form: 43 URL-safe characters


def service(secret: str, t: int = NOW, body: bytes = BODY) -> str:
    return hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()


def standard(secret: str, msg_id: str = "d1", t: int = NOW, body: bytes = BODY) -> str:
    key = base64.b64decode(secret[len("whsec_") :])
    return base64.b64encode(hmac.new(key, f"{msg_id}.{t}.".encode() + body, hashlib.sha256).digest()).decode()


def test_the_service_signature_verifies_with_its_secret_only():
    headers = {"X-Service-Signature": f"t={NOW},v1={service(SECRET)}"}
    assert verify_webhook(BODY, headers, SECRET, now=NOW)["type"] == "message.sent"
    with pytest.raises(WebhookVerificationError):
        verify_webhook(BODY, headers, OTHER, now=NOW)


def test_two_v1_values_during_a_rotation_verify_with_either_secret():
    headers = {"x-service-signature": f"t={NOW},v1={service(OTHER)},v1={service(SECRET)}"}
    for secret in (SECRET, OTHER, [LEGACY, SECRET]):
        assert verify_webhook(BODY, headers, secret, now=NOW)
    with pytest.raises(WebhookVerificationError):
        verify_webhook(BODY, headers, LEGACY, now=NOW)


def test_a_legacy_secret_signs_the_service_header_and_is_ignored_for_the_standard_one():
    headers = {"X-Service-Signature": f"t={NOW},v1={service(LEGACY)}"}
    assert verify_webhook(BODY, headers, LEGACY, now=NOW)
    only_standard = {"webhook-id": "d1", "webhook-timestamp": str(NOW), "webhook-signature": f"v1,{standard(SECRET)}"}
    with pytest.raises(WebhookVerificationError):
        verify_webhook(BODY, only_standard, LEGACY, now=NOW)


def test_standard_webhooks_headers_verify_including_two_signatures():
    headers = {
        "webhook-id": "d1",
        "webhook-timestamp": str(NOW),
        "webhook-signature": f"v1,{standard(OTHER)} v1,{standard(SECRET)}",
    }
    assert verify_webhook(BODY, headers, SECRET, now=NOW)
    assert verify_webhook(BODY, headers, OTHER, now=NOW)
    with pytest.raises(WebhookVerificationError):
        verify_webhook(BODY, {**headers, "webhook-id": "d2"}, SECRET, now=NOW)


def test_a_changed_body_an_old_timestamp_or_no_header_is_refused():
    headers = {"X-Service-Signature": f"t={NOW},v1={service(SECRET)}"}
    with pytest.raises(WebhookVerificationError, match="no signature matches"):
        verify_webhook(BODY + b" ", headers, SECRET, now=NOW)
    with pytest.raises(WebhookVerificationError, match="tolerance"):
        verify_webhook(BODY, headers, SECRET, now=NOW + 301)
    assert verify_webhook(BODY, headers, SECRET, now=NOW + 301, tolerance=600)
    with pytest.raises(WebhookVerificationError, match="no X-Service-Signature"):
        verify_webhook(BODY, {"Content-Type": "application/json"}, SECRET, now=NOW)
    with pytest.raises(WebhookVerificationError, match="no t or no v1"):
        verify_webhook(BODY, {"X-Service-Signature": "v1=00"}, SECRET, now=NOW)


def test_the_body_may_be_given_as_text():
    headers = {"X-Service-Signature": f"t={NOW},v1={service(SECRET)}"}
    assert verify_webhook(BODY.decode(), headers, SECRET, now=NOW)["data"]["status"] == "delivered"
