from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.conversation_status import ConversationStatus
from ...models.envelope_conversation_list import EnvelopeConversationList
from ...models.error_envelope import ErrorEnvelope
from ...models.window_state import WindowState
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    status: ConversationStatus | Unset = UNSET,
    window: WindowState | Unset = UNSET,
    unread: bool | Unset = UNSET,
    assigned_to: str | Unset = UNSET,
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

    json_window: str | Unset = UNSET
    if not isinstance(window, Unset):
        json_window = window

    params["window"] = json_window

    params["unread"] = unread

    params["assigned_to"] = assigned_to

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/business/conversations",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeConversationList | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeConversationList.from_dict(response.json())

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
) -> Response[EnvelopeConversationList | ErrorEnvelope]:
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
    status: ConversationStatus | Unset = UNSET,
    window: WindowState | Unset = UNSET,
    unread: bool | Unset = UNSET,
    assigned_to: str | Unset = UNSET,
) -> Response[EnvelopeConversationList | ErrorEnvelope]:
    """The business's conversations, newest activity first (any role).

     A conversation whose activity changes while you page may appear twice or move to the first
    page: deduplicate by `id`.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        status (ConversationStatus | Unset): A conversation's status: a user message reopens a
            closed one.
        window (WindowState | Unset): Whether a conversation's service window is open (free text
            may go to the user).
        unread (bool | Unset):
        assigned_to (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeConversationList | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        status=status,
        window=window,
        unread=unread,
        assigned_to=assigned_to,
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
    status: ConversationStatus | Unset = UNSET,
    window: WindowState | Unset = UNSET,
    unread: bool | Unset = UNSET,
    assigned_to: str | Unset = UNSET,
) -> EnvelopeConversationList | ErrorEnvelope | None:
    """The business's conversations, newest activity first (any role).

     A conversation whose activity changes while you page may appear twice or move to the first
    page: deduplicate by `id`.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        status (ConversationStatus | Unset): A conversation's status: a user message reopens a
            closed one.
        window (WindowState | Unset): Whether a conversation's service window is open (free text
            may go to the user).
        unread (bool | Unset):
        assigned_to (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeConversationList | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        limit=limit,
        starting_after=starting_after,
        status=status,
        window=window,
        unread=unread,
        assigned_to=assigned_to,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    status: ConversationStatus | Unset = UNSET,
    window: WindowState | Unset = UNSET,
    unread: bool | Unset = UNSET,
    assigned_to: str | Unset = UNSET,
) -> Response[EnvelopeConversationList | ErrorEnvelope]:
    """The business's conversations, newest activity first (any role).

     A conversation whose activity changes while you page may appear twice or move to the first
    page: deduplicate by `id`.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        status (ConversationStatus | Unset): A conversation's status: a user message reopens a
            closed one.
        window (WindowState | Unset): Whether a conversation's service window is open (free text
            may go to the user).
        unread (bool | Unset):
        assigned_to (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeConversationList | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        status=status,
        window=window,
        unread=unread,
        assigned_to=assigned_to,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    status: ConversationStatus | Unset = UNSET,
    window: WindowState | Unset = UNSET,
    unread: bool | Unset = UNSET,
    assigned_to: str | Unset = UNSET,
) -> EnvelopeConversationList | ErrorEnvelope | None:
    """The business's conversations, newest activity first (any role).

     A conversation whose activity changes while you page may appear twice or move to the first
    page: deduplicate by `id`.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        status (ConversationStatus | Unset): A conversation's status: a user message reopens a
            closed one.
        window (WindowState | Unset): Whether a conversation's service window is open (free text
            may go to the user).
        unread (bool | Unset):
        assigned_to (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeConversationList | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            starting_after=starting_after,
            status=status,
            window=window,
            unread=unread,
            assigned_to=assigned_to,
        )
    ).parsed
