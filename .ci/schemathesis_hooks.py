"""schemathesis hooks for .ci/schemathesis: a schema-valid recipient becomes one of the demo
business's followers (most of the time), so that generated sends get past `recipient_not_found`
and are accepted; and a valid date-time in `send_at` or `expires_at` becomes one the rules accept
(a minute ago, and a day ahead: random ones are mostly over 30 days ahead or already past). Only a
value that already matches its format is replaced, by another that matches it, so a case's
validity (positive or negative) never changes."""

import datetime
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
            now = datetime.datetime.now(datetime.timezone.utc)
            for field, at in (("send_at", now - datetime.timedelta(minutes=1)),
                              ("expires_at", now + datetime.timedelta(days=1))):
                if isinstance(body.get(field), str) and is_date_time(body[field]):
                    body[field] = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    return body


def is_date_time(value):
    """Whether `value` is an RFC 3339 date-time (what the schema's `date-time` format means)."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", value):
        return False
    try:
        datetime.datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        return False
    return True
