"""The library against a live all-in-one: README's quickstart written with it, paging through
history and events, a broadcast and its progress, and failures as typed errors."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import time
import uuid
from typing import Any

import pytest

from business_messaging import (
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    new_client,
    new_idempotency_key,
    paginate,
    unwrap,
    verify_webhook,
)
from business_messaging.api.broadcasts import create_app_broadcast, get_app_broadcast
from business_messaging.api.business import get_business
from business_messaging.api.messages import get_message, list_messages, send_app_message
from business_messaging.api.webhooks import (
    create_webhook,
    delete_webhook,
    list_events,
    rotate_webhook_secret,
)
from business_messaging.api.webhooks import (
    test_webhook as send_test_webhook,
)
from business_messaging.models import (
    CreateWebhookBody,
    RotateSecretBody,
    TextBroadcast,
    UtilityMessage,
)


def _event(body: bytes) -> dict[str, Any]:
    return json.loads(body)


def test_quickstart_sign_in_webhook_send_history_and_a_verified_delivery(owner, app, demo, receiver):
    business = unwrap(get_business.sync(client=owner))
    assert str(business.user_id) == demo["business_account_id"]
    assert business.mode == "live"

    endpoint = unwrap(
        create_webhook.sync(
            client=owner,
            body=CreateWebhookBody(url=f"{receiver.url}/hooks", events=["message.sent", "message.failed"]),
        )
    )
    assert isinstance(endpoint.secret, str) and endpoint.secret.startswith("whsec_")
    try:
        key = new_idempotency_key()
        body = UtilityMessage(
            to=demo["followers"][0]["phone_number"], category="utility", body="Your order 1042 has shipped"
        )
        sent = unwrap(send_app_message.sync(demo["business_account_id"], client=app, body=body, idempotency_key=key))
        assert sent.status == "sent"
        # A retry with the same key and body answers the same message instead of sending again.
        again = unwrap(send_app_message.sync(demo["business_account_id"], client=app, body=body, idempotency_key=key))
        assert again.id == sent.id

        raw, headers = receiver.wait_for(
            lambda b, h: _event(b)["type"] == "message.sent" and _event(b)["data"]["message_send_id"] == str(sent.id)
        )
        payload = verify_webhook(raw, headers, endpoint.secret)
        assert payload["data"]["status"] == "delivered"
        assert payload["data"]["category"] == "utility"
        assert headers["x-service-delivery"] == payload["delivery_id"]

        message = unwrap(get_message.sync(sent.id, client=owner))
        assert message.id == sent.id and message.source == "app"
        history = unwrap(list_messages.sync(client=owner, limit=5))
        assert sent.id in [m.id for m in history.messages]
    finally:
        delete_webhook.sync(endpoint.id, client=owner)


def test_paging_through_history_and_events(owner, app, demo):
    follower = demo["followers"][0]["phone_number"]
    sent = []
    for n in range(7):
        body = UtilityMessage(to=follower, category="utility", body=f"Paging {n}")
        sent.append(unwrap(send_app_message.sync(demo["business_account_id"], client=app, body=body)).id)

    pages: list[int] = []

    def counting(**kwargs: Any):
        answer = list_messages.sync(**kwargs)
        pages.append(len(unwrap(answer).messages))
        return answer

    seen = [m.id for m in paginate(counting, client=owner, limit=3, source="app")]
    assert len(seen) == len(set(seen)), "an item came twice"
    positions = [seen.index(i) for i in sent]
    assert positions == sorted(positions, reverse=True), "history is newest first, page after page"
    assert len(pages) >= 3 and all(n <= 3 for n in pages)

    # The paging stops early when asked to: a generator fetches pages as they are needed.
    first_two = []
    for message in paginate(list_messages, client=owner, limit=1):
        first_two.append(message.id)
        if len(first_two) == 2:
            break
    assert len(first_two) == 2

    # Events, oldest first after a known one, as a poller reads them.
    newest = [e for e in paginate(list_events, client=owner, limit=50)]
    assert newest, "the sends above made events"
    start = newest[min(len(newest) - 1, 10)]
    after = [e.id for e in paginate(list_events, client=owner, after=start.id, limit=4)]
    expected = [e.id for e in reversed(newest[: newest.index(start)])]
    assert after[: len(expected)] == expected


def test_a_broadcast_and_its_progress(app, demo):
    created = unwrap(
        create_app_broadcast.sync(
            demo["business_account_id"],
            client=app,
            body=TextBroadcast(name="Python library broadcast", category="utility", body="We open at 9 tomorrow"),
            idempotency_key=new_idempotency_key(),
        )
    )
    assert created.status in ("running", "scheduled", "completed")
    deadline = time.monotonic() + 60
    progress = []
    while True:
        broadcast = unwrap(get_app_broadcast.sync(demo["business_account_id"], created.id, client=app))
        progress.append((broadcast.status, broadcast.counts.accepted, broadcast.counts.delivered))
        if broadcast.status == "completed":
            break
        assert time.monotonic() < deadline, f"the broadcast did not complete: {progress}"
        time.sleep(0.2)
    counts = broadcast.counts
    assert counts.audience == demo["follower_count"]
    assert counts.accepted + counts.skipped + counts.not_created == counts.audience
    assert counts.accepted == counts.audience and counts.delivered == counts.accepted
    assert broadcast.completed_at is not None


def test_failures_are_typed_errors_with_code_and_detail(base_url, app, owner, demo):
    business = demo["business_account_id"]
    # 400 with the field named in the detail.
    with pytest.raises(BadRequestError) as err:
        send_app_message.sync(
            business,
            client=app,
            body=UtilityMessage(to=demo["followers"][0]["phone_number"], category="utility", body=""),
        )
    assert err.value.status == 400
    assert err.value.code in ("message_body_required", "invalid_request")
    assert err.value.detail and err.value.request_id

    # 403: a user who does not follow this business (its owner).
    with pytest.raises(PermissionDeniedError) as err:
        send_app_message.sync(
            business, client=app, body=UtilityMessage(to=demo["owner_phone_number"], category="utility", body="Hello")
        )
    assert (err.value.status, err.value.code) == (403, "business_follow_required")
    assert "follow" in err.value.detail

    # 404 for a message that does not exist.
    with pytest.raises(NotFoundError) as err:
        get_message.sync(uuid.uuid4(), client=owner)
    assert err.value.code == "message_not_found"

    # 409: an Idempotency-Key reused with another body.
    key = new_idempotency_key()
    to = demo["followers"][0]["phone_number"]
    send_app_message.sync(
        business, client=app, body=UtilityMessage(to=to, category="utility", body="One"), idempotency_key=key
    )
    with pytest.raises(ConflictError) as err:
        send_app_message.sync(
            business, client=app, body=UtilityMessage(to=to, category="utility", body="Two"), idempotency_key=key
        )
    assert err.value.code == "idempotency_key_conflict"

    # 401 for a token the service does not know; the error is an ApiError with its envelope.
    with new_client(base_url, token="sva_unknown") as stranger:
        with pytest.raises(Exception) as err:
            send_app_message.sync(business, client=stranger, body=UtilityMessage(to=to, category="utility", body="Hi"))
    assert getattr(err.value, "status", None) == 401
    assert err.value.code == "invalid_app_token"
    assert err.value.body["success"] is False


def test_a_rotated_secret_verifies_with_both_secrets_during_its_grace(owner, receiver):
    endpoint = unwrap(
        create_webhook.sync(
            client=owner, body=CreateWebhookBody(url=f"{receiver.url}/rotated", events=["message.sent"])
        )
    )
    try:
        old = endpoint.secret
        new = "whsec_" + base64.b64encode(os.urandom(32)).decode()
        rotated = unwrap(
            rotate_webhook_secret.sync(endpoint.id, client=owner, body=RotateSecretBody(secret=new, grace_seconds=3600))
        )
        assert rotated.previous_secret_expires_at is not None
        unwrap(send_test_webhook.sync(endpoint.id, client=owner))
        raw, headers = receiver.wait_for(lambda b, h: _event(b)["type"] == "webhook.test")
        assert headers["x-service-signature"].count("v1=") == 2
        # Either secret verifies X-Service-Signature during the grace.
        assert verify_webhook(raw, headers, old)["type"] == "webhook.test"
        assert verify_webhook(raw, headers, new)["type"] == "webhook.test"
        assert verify_webhook(raw, headers, [new, old])["type"] == "webhook.test"
        # The Standard Webhooks headers alone verify with the new secret.
        standard = {k: v for k, v in headers.items() if k.startswith("webhook-")}
        assert set(standard) == {"webhook-id", "webhook-timestamp", "webhook-signature"}
        assert verify_webhook(raw, standard, new)["type"] == "webhook.test"
    finally:
        delete_webhook.sync(endpoint.id, client=owner)


def test_the_asyncio_functions_page_and_raise_typed_errors_too(owner, demo):
    async def run() -> tuple[list[Any], BaseException | None]:
        from business_messaging import apaginate

        seen = []
        async for message in apaginate(list_messages, client=owner, limit=2):
            seen.append(message.id)
            if len(seen) == 5:
                break
        failure = None
        try:
            await get_message.asyncio(uuid.uuid4(), client=owner)
        except NotFoundError as err:
            failure = err
        return seen, failure

    seen, failure = asyncio.run(run())
    assert len(seen) == 5 and len(set(seen)) == 5
    assert failure is not None and failure.code == "message_not_found"
