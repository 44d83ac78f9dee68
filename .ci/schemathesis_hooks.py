"""schemathesis hooks for .ci/schemathesis: a schema-valid recipient becomes one of the demo
business's followers (most of the time), so that generated sends get past `recipient_not_found`
and are accepted. Only a value that already matches the E.164 pattern is replaced, by another
that matches it, so a case's validity (positive or negative) never changes."""

import os
import re

import schemathesis

FOLLOWERS = [p for p in os.environ.get("ST_FOLLOWERS", "").split(",") if p]
E164 = re.compile(r"^\+[1-9][0-9]{1,14}$")


@schemathesis.hook
def map_body(context, body):
    to = body.get("to") if isinstance(body, dict) else None
    if FOLLOWERS and isinstance(to, str) and E164.fullmatch(to):
        h = sum(to.encode())
        if h % 5:
            body["to"] = FOLLOWERS[h % len(FOLLOWERS)]
    return body
