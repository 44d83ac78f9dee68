from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.authentication_message import AuthenticationMessage
from ...models.envelope_check_result import EnvelopeCheckResult
from ...models.error_envelope import ErrorEnvelope
from ...models.marketing_rich_message import MarketingRichMessage
from ...models.marketing_text_message import MarketingTextMessage
from ...models.templated_message import TemplatedMessage
from ...models.utility_message import UtilityMessage
from ...types import Response


def _get_kwargs(
    business_account_id: UUID,
    *,
    body: AuthenticationMessage
    | MarketingRichMessage
    | MarketingTextMessage
    | TemplatedMessage
    | UtilityMessage,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/{business_account_id}/messages/check".format(
            business_account_id=quote(str(business_account_id), safe=""),
        ),
    }

    if isinstance(body, AuthenticationMessage):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, UtilityMessage):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, MarketingTextMessage):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, MarketingRichMessage):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeCheckResult | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeCheckResult.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorEnvelope.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[EnvelopeCheckResult | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    business_account_id: UUID,
    *,
    client: AuthenticatedClient,
    body: AuthenticationMessage
    | MarketingRichMessage
    | MarketingTextMessage
    | TemplatedMessage
    | UtilityMessage,
) -> Response[EnvelopeCheckResult | ErrorEnvelope]:
    """Check an app-token send: what `POST /v1/{businessAccountId}/messages` with this body would
    answer now, except that success is `{"would_send": true}`. Nothing is stored and no limit is
    spent; an Idempotency-Key is ignored.

    Args:
        business_account_id (UUID):
        body (AuthenticationMessage | MarketingRichMessage | MarketingTextMessage |
            TemplatedMessage | UtilityMessage): A send: one shape per category.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeCheckResult | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        business_account_id=business_account_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    business_account_id: UUID,
    *,
    client: AuthenticatedClient,
    body: AuthenticationMessage
    | MarketingRichMessage
    | MarketingTextMessage
    | TemplatedMessage
    | UtilityMessage,
) -> EnvelopeCheckResult | ErrorEnvelope | None:
    """Check an app-token send: what `POST /v1/{businessAccountId}/messages` with this body would
    answer now, except that success is `{"would_send": true}`. Nothing is stored and no limit is
    spent; an Idempotency-Key is ignored.

    Args:
        business_account_id (UUID):
        body (AuthenticationMessage | MarketingRichMessage | MarketingTextMessage |
            TemplatedMessage | UtilityMessage): A send: one shape per category.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeCheckResult | ErrorEnvelope
    """

    return sync_detailed(
        business_account_id=business_account_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    business_account_id: UUID,
    *,
    client: AuthenticatedClient,
    body: AuthenticationMessage
    | MarketingRichMessage
    | MarketingTextMessage
    | TemplatedMessage
    | UtilityMessage,
) -> Response[EnvelopeCheckResult | ErrorEnvelope]:
    """Check an app-token send: what `POST /v1/{businessAccountId}/messages` with this body would
    answer now, except that success is `{"would_send": true}`. Nothing is stored and no limit is
    spent; an Idempotency-Key is ignored.

    Args:
        business_account_id (UUID):
        body (AuthenticationMessage | MarketingRichMessage | MarketingTextMessage |
            TemplatedMessage | UtilityMessage): A send: one shape per category.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeCheckResult | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        business_account_id=business_account_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    business_account_id: UUID,
    *,
    client: AuthenticatedClient,
    body: AuthenticationMessage
    | MarketingRichMessage
    | MarketingTextMessage
    | TemplatedMessage
    | UtilityMessage,
) -> EnvelopeCheckResult | ErrorEnvelope | None:
    """Check an app-token send: what `POST /v1/{businessAccountId}/messages` with this body would
    answer now, except that success is `{"would_send": true}`. Nothing is stored and no limit is
    spent; an Idempotency-Key is ignored.

    Args:
        business_account_id (UUID):
        body (AuthenticationMessage | MarketingRichMessage | MarketingTextMessage |
            TemplatedMessage | UtilityMessage): A send: one shape per category.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeCheckResult | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            business_account_id=business_account_id,
            client=client,
            body=body,
        )
    ).parsed
