"""Delivery health with the library: an endpoint that cannot be reached turns failing after five
failed attempts; its health and its day's counters read back typed; the member's alert setting."""

from __future__ import annotations

import time
from typing import Any

from business_messaging import unwrap
from business_messaging.api.auth import update_current_user
from business_messaging.api.messages import send_app_message
from business_messaging.api.webhooks import create_webhook, delete_webhook, list_webhooks, webhook_stats
from business_messaging.models import CreateWebhookBody, UpdateMeBody, UtilityMessage


def test_a_failing_endpoints_health_and_stats_and_the_alert_setting(owner, app, demo: dict[str, Any]):
    # Nothing listens on port 9 of the loopback: every attempt fails to connect.
    endpoint = unwrap(
        create_webhook.sync(
            client=owner, body=CreateWebhookBody(url="http://127.0.0.1:9/py-down", events=["message.sent"])
        )
    )
    try:
        assert endpoint.health.state == "healthy"
        assert endpoint.health.consecutive_failures == 0
        to = demo["followers"][1]["phone_number"]
        for i in range(5):
            unwrap(
                send_app_message.sync(
                    demo["business_account_id"],
                    client=app,
                    body=UtilityMessage(to=to, category="utility", body=f"health {i}"),
                )
            )
        deadline = time.monotonic() + 30
        health = endpoint.health
        while health.state != "failing":
            assert time.monotonic() < deadline, f"still {health.state} after 30 s"
            time.sleep(0.2)
            hooks = unwrap(list_webhooks.sync(client=owner))
            health = next(w for w in hooks if w.id == endpoint.id).health
        assert health.consecutive_failures >= 5
        assert health.failing_since is not None
        assert health.last_failure is not None and health.last_failure.http_status is None
        stats = unwrap(webhook_stats.sync(endpoint.id, client=owner, days=2))
        assert len(stats.days) == 2
        assert stats.days[1].failed_attempts >= 5

        me = unwrap(update_current_user.sync(client=owner, body=UpdateMeBody(webhook_alerts=False)))
        assert me.webhook_alerts is False
        me = unwrap(update_current_user.sync(client=owner, body=UpdateMeBody(webhook_alerts=True)))
        assert me.webhook_alerts is True
    finally:
        delete_webhook.sync(endpoint.id, client=owner)
