"""A configured client, and :func:`unwrap` for the data of an answer.

The generated ``api`` functions take a client; :func:`new_client` makes one whose every failure
answer raises the :mod:`~business_messaging.exceptions` class of its status, so a call that
returns has succeeded. (Written by hand; ``api/`` and ``models/`` are generated.)
"""

from __future__ import annotations

import uuid
from typing import Any, Protocol, TypeVar, overload

import httpx

from .client import AuthenticatedClient, Client
from .exceptions import ApiError, error_from_response
from .types import Response

__all__ = ["new_client", "new_idempotency_key", "unwrap", "USER_AGENT"]

__version__ = "1.0.0"
USER_AGENT = f"business-messaging-python/{__version__}"

T = TypeVar("T", covariant=True)


def _raise_for_failure(response: httpx.Response) -> None:
    if response.is_success:
        return
    response.read()
    raise error_from_response(response)


async def _araise_for_failure(response: httpx.Response) -> None:
    if response.is_success:
        return
    await response.aread()
    raise error_from_response(response)


@overload
def new_client(
    base_url: str,
    token: str,
    *,
    timeout: float = 30.0,
    connect_retries: int = 2,
    headers: dict[str, str] | None = None,
) -> AuthenticatedClient: ...


@overload
def new_client(
    base_url: str,
    token: None = None,
    *,
    timeout: float = 30.0,
    connect_retries: int = 2,
    headers: dict[str, str] | None = None,
) -> Client: ...


def new_client(
    base_url: str,
    token: str | None = None,
    *,
    timeout: float = 30.0,
    connect_retries: int = 2,
    headers: dict[str, str] | None = None,
) -> AuthenticatedClient | Client:
    """A client for the service at ``base_url`` (``https://messaging.example.com``).

    Args:
        base_url: the gateway's address.
        token: a developer-app token (``sva_...``) for the ``/v1`` routes, or a user's access
            token for the console routes; None for the sign-in routes.
        timeout: seconds for each request.
        connect_retries: how many times a request whose connection could not be made is tried
            again (nothing was sent, so this is safe for every request).
        headers: extra headers for every request.

    Every failure answer raises :class:`~business_messaging.exceptions.ApiError` (a subclass
    per status). Use it as a context manager, or call ``close()``, to release its connections.
    """
    all_headers = {"User-Agent": USER_AGENT, **(headers or {})}
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    limits = httpx.Timeout(timeout)
    common: dict[str, Any] = {
        "base_url": base_url,
        "timeout": limits,
        "raise_on_unexpected_status": True,
    }
    client: AuthenticatedClient | Client = AuthenticatedClient(token=token, **common) if token else Client(**common)
    client.set_httpx_client(
        httpx.Client(
            base_url=base_url,
            headers=all_headers,
            timeout=limits,
            transport=httpx.HTTPTransport(retries=connect_retries),
            event_hooks={"response": [_raise_for_failure]},
        )
    )
    client.set_async_httpx_client(
        httpx.AsyncClient(
            base_url=base_url,
            headers=all_headers,
            timeout=limits,
            transport=httpx.AsyncHTTPTransport(retries=connect_retries),
            event_hooks={"response": [_araise_for_failure]},
        )
    )
    return client


class _Envelope(Protocol[T]):
    @property
    def data(self) -> T: ...


def unwrap(answer: _Envelope[T] | Response[Any] | Any) -> T:
    """The ``data`` of a successful answer: what a generated ``sync``/``asyncio`` call returned
    (or a ``sync_detailed`` Response). Raises :class:`ApiError` for a failure envelope, which
    only a client not made by :func:`new_client` lets through."""
    if isinstance(answer, Response):
        if answer.parsed is None:
            raise ApiError(int(answer.status_code), f"http_{int(answer.status_code)}", "no body")
        answer = answer.parsed
    if answer is None:
        raise ApiError(0, "no_answer", "the call returned nothing")
    if getattr(answer, "success", True) is False:
        raise ApiError(
            0,
            str(getattr(answer, "message", "error")),
            str(getattr(answer, "detail", "")),
        )
    return answer.data


def new_idempotency_key() -> str:
    """A fresh Idempotency-Key. Make it once per intended send and keep it with the request: a
    retry with the same key and body answers the first result (for 24 hours) instead of sending
    again."""
    return str(uuid.uuid4())
