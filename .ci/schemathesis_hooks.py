"""schemathesis hooks for .ci/schemathesis: a schema-valid recipient becomes one of the demo
business's followers (most of the time), so that generated sends get past `recipient_not_found`
and are accepted. Only a value that already matches the E.164 pattern is replaced, by another
that matches it, so a case's validity (positive or negative) never changes."""

import itertools
import os
import re

import schemathesis

FOLLOWERS = [p for p in os.environ.get("ST_FOLLOWERS", "").split(",") if p]
E164 = re.compile(r"^\+[1-9][0-9]{1,14}$")
TURNS = itertools.count()


@schemathesis.hook
def map_body(context, body):
    to = body.get("to") if isinstance(body, dict) else None
    if FOLLOWERS and isinstance(to, str) and E164.fullmatch(to):
        h = sum(to.encode())
        if h % 5:
            # The followers in turn, so that sends limited per recipient (service messages:
            # one a minute each) reach a fresh one as often as there are followers.
            body["to"] = FOLLOWERS[next(TURNS) % len(FOLLOWERS)]
    return body
