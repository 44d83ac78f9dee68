from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_event_list import EnvelopeEventList
from ...models.error_envelope import ErrorEnvelope
from ...models.event_type import EventType
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    after: UUID | Unset = UNSET,
    type_: EventType | Unset = UNSET,
) -> dict[str, Any]:
    params: dict[str, Any] = {}

    params["limit"] = limit

    json_starting_after: str | Unset = UNSET
    if not isinstance(starting_after, Unset):
        json_starting_after = str(starting_after)
    params["starting_after"] = json_starting_after

    json_after: str | Unset = UNSET
    if not isinstance(after, Unset):
        json_after = str(after)
    params["after"] = json_after

    json_type_: str | Unset = UNSET
    if not isinstance(type_, Unset):
        json_type_ = type_

    params["type"] = json_type_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/business/events",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeEventList | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeEventList.from_dict(response.json())

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
) -> Response[EnvelopeEventList | ErrorEnvelope]:
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
    after: UUID | Unset = UNSET,
    type_: EventType | Unset = UNSET,
) -> Response[EnvelopeEventList | ErrorEnvelope]:
    """The business's events (every type but `webhook.test`, whatever the endpoints subscribe
    to), in commit order: newest first a page at a time, or with `after` the events committed
    after that one, oldest first. A poller calls it in a loop with `after` = the last `id` it
    saw and never misses an event, even one committed late.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        after (UUID | Unset):
        type_ (EventType | Unset): An event a webhook endpoint may subscribe to.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeEventList | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        after=after,
        type_=type_,
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
    after: UUID | Unset = UNSET,
    type_: EventType | Unset = UNSET,
) -> EnvelopeEventList | ErrorEnvelope | None:
    """The business's events (every type but `webhook.test`, whatever the endpoints subscribe
    to), in commit order: newest first a page at a time, or with `after` the events committed
    after that one, oldest first. A poller calls it in a loop with `after` = the last `id` it
    saw and never misses an event, even one committed late.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        after (UUID | Unset):
        type_ (EventType | Unset): An event a webhook endpoint may subscribe to.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeEventList | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        limit=limit,
        starting_after=starting_after,
        after=after,
        type_=type_,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    after: UUID | Unset = UNSET,
    type_: EventType | Unset = UNSET,
) -> Response[EnvelopeEventList | ErrorEnvelope]:
    """The business's events (every type but `webhook.test`, whatever the endpoints subscribe
    to), in commit order: newest first a page at a time, or with `after` the events committed
    after that one, oldest first. A poller calls it in a loop with `after` = the last `id` it
    saw and never misses an event, even one committed late.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        after (UUID | Unset):
        type_ (EventType | Unset): An event a webhook endpoint may subscribe to.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeEventList | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        after=after,
        type_=type_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    after: UUID | Unset = UNSET,
    type_: EventType | Unset = UNSET,
) -> EnvelopeEventList | ErrorEnvelope | None:
    """The business's events (every type but `webhook.test`, whatever the endpoints subscribe
    to), in commit order: newest first a page at a time, or with `after` the events committed
    after that one, oldest first. A poller calls it in a loop with `after` = the last `id` it
    saw and never misses an event, even one committed late.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        after (UUID | Unset):
        type_ (EventType | Unset): An event a webhook endpoint may subscribe to.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeEventList | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            starting_after=starting_after,
            after=after,
            type_=type_,
        )
    ).parsed
