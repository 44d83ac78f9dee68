from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.authentication_message import AuthenticationMessage
from ...models.envelope_send_result import EnvelopeSendResult
from ...models.error_envelope import ErrorEnvelope
from ...models.marketing_rich_message import MarketingRichMessage
from ...models.marketing_text_message import MarketingTextMessage
from ...models.templated_message import TemplatedMessage
from ...models.utility_message import UtilityMessage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: AuthenticationMessage
    | MarketingRichMessage
    | MarketingTextMessage
    | TemplatedMessage
    | UtilityMessage,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/business/messages",
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
) -> EnvelopeSendResult | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeSendResult.from_dict(response.json())

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
) -> Response[EnvelopeSendResult | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: AuthenticationMessage
    | MarketingRichMessage
    | MarketingTextMessage
    | TemplatedMessage
    | UtilityMessage,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[EnvelopeSendResult | ErrorEnvelope]:
    """Send from the console (any team role). `authentication` is reserved for app tokens.

    Args:
        idempotency_key (None | str | Unset):
        body (AuthenticationMessage | MarketingRichMessage | MarketingTextMessage |
            TemplatedMessage | UtilityMessage): A send: one shape per category.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeSendResult | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: AuthenticationMessage
    | MarketingRichMessage
    | MarketingTextMessage
    | TemplatedMessage
    | UtilityMessage,
    idempotency_key: None | str | Unset = UNSET,
) -> EnvelopeSendResult | ErrorEnvelope | None:
    """Send from the console (any team role). `authentication` is reserved for app tokens.

    Args:
        idempotency_key (None | str | Unset):
        body (AuthenticationMessage | MarketingRichMessage | MarketingTextMessage |
            TemplatedMessage | UtilityMessage): A send: one shape per category.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeSendResult | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: AuthenticationMessage
    | MarketingRichMessage
    | MarketingTextMessage
    | TemplatedMessage
    | UtilityMessage,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[EnvelopeSendResult | ErrorEnvelope]:
    """Send from the console (any team role). `authentication` is reserved for app tokens.

    Args:
        idempotency_key (None | str | Unset):
        body (AuthenticationMessage | MarketingRichMessage | MarketingTextMessage |
            TemplatedMessage | UtilityMessage): A send: one shape per category.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeSendResult | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: AuthenticationMessage
    | MarketingRichMessage
    | MarketingTextMessage
    | TemplatedMessage
    | UtilityMessage,
    idempotency_key: None | str | Unset = UNSET,
) -> EnvelopeSendResult | ErrorEnvelope | None:
    """Send from the console (any team role). `authentication` is reserved for app tokens.

    Args:
        idempotency_key (None | str | Unset):
        body (AuthenticationMessage | MarketingRichMessage | MarketingTextMessage |
            TemplatedMessage | UtilityMessage): A send: one shape per category.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeSendResult | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
