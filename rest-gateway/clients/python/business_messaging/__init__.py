"""Python client for the Business Messaging API.

``api`` (one module per operation, grouped by tag) and ``models`` are generated from the
service's OpenAPI document by ``rest-gateway/clients/generate``; the rest is written by hand:
:func:`new_client` (failures raise typed errors), :func:`unwrap`, :func:`paginate` and
:func:`verify_webhook`.

    from business_messaging import new_client, unwrap
    from business_messaging.api.messages import send_app_message
    from business_messaging.models import UtilityMessage

    client = new_client("https://messaging.example.com", token="sva_...")
    sent = unwrap(send_app_message.sync(business_id, client=client,
        body=UtilityMessage(to="+14155550124", category="utility", body="Your order has shipped"),
        idempotency_key="order-1042-shipped"))
"""

from .client import AuthenticatedClient, Client
from .exceptions import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    WebhookVerificationError,
)
from .paging import apaginate, paginate
from .session import USER_AGENT, __version__, new_client, new_idempotency_key, unwrap
from .webhooks import verify_webhook

__all__ = (
    "USER_AGENT",
    "ApiError",
    "AuthenticatedClient",
    "AuthenticationError",
    "BadRequestError",
    "Client",
    "ConflictError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "ServiceUnavailableError",
    "WebhookVerificationError",
    "__version__",
    "apaginate",
    "new_client",
    "new_idempotency_key",
    "paginate",
    "unwrap",
    "verify_webhook",
)
