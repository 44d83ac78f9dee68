from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_message_history import EnvelopeMessageHistory
from ...models.error_envelope import ErrorEnvelope
from ...models.message_source import MessageSource
from ...models.message_status import MessageStatus
from ...models.record_category import RecordCategory
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    status: MessageStatus | Unset = UNSET,
    category: RecordCategory | Unset = UNSET,
    source: MessageSource | Unset = UNSET,
) -> dict[str, Any]:
    params: dict[str, Any] = {}

    params["limit"] = limit

    json_starting_after: str | Unset = UNSET
    if not isinstance(starting_after, Unset):
        json_starting_after = str(starting_after)
    params["starting_after"] = json_starting_after

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    json_category: str | Unset = UNSET
    if not isinstance(category, Unset):
        json_category = category

    params["category"] = json_category

    json_source: str | Unset = UNSET
    if not isinstance(source, Unset):
        json_source = source

    params["source"] = json_source

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/business/messages",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeMessageHistory | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeMessageHistory.from_dict(response.json())

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
) -> Response[EnvelopeMessageHistory | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    status: MessageStatus | Unset = UNSET,
    category: RecordCategory | Unset = UNSET,
    source: MessageSource | Unset = UNSET,
) -> Response[EnvelopeMessageHistory | ErrorEnvelope]:
    """The newest messages first, a page at a time.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        status (MessageStatus | Unset): A message's status: `accepted` until the outcome is known.
        category (RecordCategory | Unset): A message's category in the history: a send category,
            or `service` for free-form text.
        source (MessageSource | Unset): Where a message came from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeMessageHistory | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        status=status,
        category=category,
        source=source,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    status: MessageStatus | Unset = UNSET,
    category: RecordCategory | Unset = UNSET,
    source: MessageSource | Unset = UNSET,
) -> EnvelopeMessageHistory | ErrorEnvelope | None:
    """The newest messages first, a page at a time.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        status (MessageStatus | Unset): A message's status: `accepted` until the outcome is known.
        category (RecordCategory | Unset): A message's category in the history: a send category,
            or `service` for free-form text.
        source (MessageSource | Unset): Where a message came from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeMessageHistory | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        limit=limit,
        starting_after=starting_after,
        status=status,
        category=category,
        source=source,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    status: MessageStatus | Unset = UNSET,
    category: RecordCategory | Unset = UNSET,
    source: MessageSource | Unset = UNSET,
) -> Response[EnvelopeMessageHistory | ErrorEnvelope]:
    """The newest messages first, a page at a time.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        status (MessageStatus | Unset): A message's status: `accepted` until the outcome is known.
        category (RecordCategory | Unset): A message's category in the history: a send category,
            or `service` for free-form text.
        source (MessageSource | Unset): Where a message came from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeMessageHistory | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        status=status,
        category=category,
        source=source,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    status: MessageStatus | Unset = UNSET,
    category: RecordCategory | Unset = UNSET,
    source: MessageSource | Unset = UNSET,
) -> EnvelopeMessageHistory | ErrorEnvelope | None:
    """The newest messages first, a page at a time.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        status (MessageStatus | Unset): A message's status: `accepted` until the outcome is known.
        category (RecordCategory | Unset): A message's category in the history: a send category,
            or `service` for free-form text.
        source (MessageSource | Unset): Where a message came from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeMessageHistory | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            starting_after=starting_after,
            status=status,
            category=category,
            source=source,
        )
    ).parsed
