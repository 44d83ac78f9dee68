"""Fixtures for the tests that run against a live all-in-one (``.ci/clients`` starts one).

Environment: ``BM_BASE_URL`` (the gateway), ``BM_DEMO`` (the JSON that ``core-service admin demo``
printed: a live business, its owner, followers and an app token) and ``BM_SERVER_LOG`` (the
server's log, where the ``log`` SMS provider writes sign-in codes). Without them the service
tests are skipped, except under ``CI=true`` where that is a failure.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import business_messaging
from business_messaging import new_client, unwrap
from business_messaging.api.auth import request_otp, verify_otp
from business_messaging.models import OtpRequestBody, OtpVerifyBody


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is not set: run these tests through .ci/clients")
        pytest.skip(f"{name} is not set (a live all-in-one is needed)")
    return value


@pytest.fixture(scope="session")
def base_url() -> str:
    print(f"business_messaging from {business_messaging.__file__}")
    return _env("BM_BASE_URL")


@pytest.fixture(scope="session")
def demo() -> dict[str, Any]:
    return json.loads(_env("BM_DEMO"))


@pytest.fixture(scope="session")
def app(base_url: str, demo: dict[str, Any]):
    """A client with the demo app's token (every scope)."""
    with new_client(base_url, token=demo["app_token"]) as client:
        yield client


def sign_in(base_url: str, phone: str) -> str:
    """An access token for ``phone``, signed in with the one-time code from the server's log."""
    log = _env("BM_SERVER_LOG")
    with new_client(base_url) as anonymous:
        seen = len(_codes(log))
        request_otp.sync(client=anonymous, body=OtpRequestBody(phone_number=phone))
        deadline = time.monotonic() + 20
        while len(_codes(log)) <= seen:
            assert time.monotonic() < deadline, "no login code reached the server's log"
            time.sleep(0.1)
        code = _codes(log)[-1]
        tokens = unwrap(verify_otp.sync(client=anonymous, body=OtpVerifyBody(phone_number=phone, code=code)))
        return tokens.access_token


def _codes(log: str) -> list[str]:
    with open(log, encoding="utf-8", errors="replace") as f:
        return re.findall(r"login code is (\d+)", f.read())


@pytest.fixture(scope="session")
def owner(base_url: str, demo: dict[str, Any]):
    """A client signed in as the demo business's owner, as the quickstart does."""
    with new_client(base_url, token=sign_in(base_url, demo["owner_phone_number"])) as client:
        yield client


class Receiver:
    """A local webhook receiver: records every request's raw body and headers, answers 204."""

    def __init__(self) -> None:
        self.requests: list[tuple[bytes, dict[str, str]]] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver._lock:
                    receiver.requests.append((body, {k.lower(): v for k, v in self.headers.items()}))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def wait_for(self, predicate, timeout: float = 30.0) -> tuple[bytes, dict[str, str]]:
        """The first recorded request for which ``predicate(body, headers)`` holds."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                for body, headers in self.requests:
                    if predicate(body, headers):
                        return body, headers
            assert time.monotonic() < deadline, f"no such delivery within {timeout} s: {self.requests}"
            time.sleep(0.1)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()
