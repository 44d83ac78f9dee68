"""Verifies recorded deliveries with the `standardwebhooks` package from PyPI.

    python3 verify.py CASES.json DELIVERIES.jsonl

CASES.json lists {"path", "secret" (must verify), "others" (must not), "standard" (whether the
Standard headers are expected at all)}; every case needs at least one delivery.
"""

import base64
import json
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

cases = json.load(open(sys.argv[1]))
deliveries = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
for case in cases:
    mine = [d for d in deliveries if d["path"] == case["path"]]
    assert mine, f"no delivery reached {case['path']}"
    for delivery in mine:
        body = base64.b64decode(delivery["body"])
        headers = delivery["headers"]
        if not case["standard"]:
            assert "webhook-signature" not in headers, headers
            continue
        payload = Webhook(case["secret"]).verify(body, headers)
        assert payload["delivery_id"] == headers["webhook-id"], payload
        for other in case["others"]:
            try:
                Webhook(other).verify(body, headers)
            except WebhookVerificationError:
                pass
            else:
                raise AssertionError(f"{case['path']}: verified with a secret that must not sign")
    print(f"python standardwebhooks: {len(mine)} deliveries to {case['path']} as expected")
