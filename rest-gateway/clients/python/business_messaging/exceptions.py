"""Typed errors: every failure answer of the service raises an :class:`ApiError` subclass.

The service answers a failure with the envelope ``{"success": false, "message": <code>,
"data": null, "detail": <why>, "timestamp": ...}`` and a status. The client turns it into the
exception of that status, carrying the code, the detail, the request id and, on 429 and 503,
``Retry-After``. (This module is written by hand; ``api/`` and ``models/`` are generated.)
"""

from __future__ import annotations

import json
from typing import Any

import httpx

__all__ = [
    "ApiError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "ServiceUnavailableError",
    "WebhookVerificationError",
    "error_from_response",
]


class ApiError(Exception):
    """A failure answer of the service.

    Attributes:
        status: the HTTP status (400, 401, 403, 404, 409, 413, 429, 500, 503, ...).
        code: the error code (the envelope's ``message``), one of
            ``business_messaging.models.ErrorCode`` or a code this version does not know yet.
        detail: one sentence saying why, naming the field and the rule where there is one.
        request_id: the answer's ``X-Request-Id``: quote it when reporting a problem.
        retry_after: seconds to wait before trying again (``Retry-After``), when given.
        body: the answer's parsed JSON body (or None when it was not JSON).
    """

    status: int
    code: str
    detail: str
    request_id: str | None
    retry_after: int | None
    body: Any

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        request_id: str | None = None,
        retry_after: int | None = None,
        body: Any = None,
    ) -> None:
        self.status = status
        self.code = code
        self.detail = detail
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body
        super().__init__(f"{status} {code}: {detail}")

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, "
            f"detail={self.detail!r}, request_id={self.request_id!r})"
        )


class BadRequestError(ApiError):
    """400: the request is malformed or breaks a rule (``invalid_request``, ...)."""


class AuthenticationError(ApiError):
    """401: a missing, expired or revoked token (``unauthorized``, ``invalid_app_token``, ...)."""


class PermissionDeniedError(ApiError):
    """403: the caller may not do this (``insufficient_role``, ``app_scope_required``, ...)."""


class NotFoundError(ApiError):
    """404: no such route or resource, or one of another business (``message_not_found``, ...)."""


class ConflictError(ApiError):
    """409: the resource is in the wrong state, or an Idempotency-Key was reused differently."""


class PayloadTooLargeError(ApiError):
    """413: the body is over the size limit."""


class RateLimitError(ApiError):
    """429: a limit was reached; ``retry_after`` says when to try again."""


class ServerError(ApiError):
    """5xx: the service failed; the request may be retried (with the same Idempotency-Key)."""


class ServiceUnavailableError(ServerError):
    """503: the service is briefly unavailable; ``retry_after`` says when to try again."""


class WebhookVerificationError(Exception):
    """A webhook delivery whose signature or timestamp does not verify: answer it 400."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_from_response(response: httpx.Response) -> ApiError:
    """The typed error of a failure answer (its body must have been read)."""
    status = response.status_code
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else ApiError)
    body: Any = None
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        code = body["message"]
        detail = body.get("detail") or code
    else:
        # Not the service's envelope (a proxy in between, say): keep what can be said.
        code = f"http_{status}"
        text = response.content.decode("utf-8", errors="replace").strip()
        detail = text[:200] or (response.reason_phrase or f"status {status}")
    retry_after: int | None = None
    raw = response.headers.get("retry-after")
    if raw is not None and raw.strip().isdigit():
        retry_after = int(raw.strip())
    return cls(
        status,
        code,
        str(detail),
        request_id=response.headers.get("x-request-id"),
        retry_after=retry_after,
        body=body,
    )
