from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.broadcast_category import BroadcastCategory
from ...models.envelope_template_list import EnvelopeTemplateList
from ...models.error_envelope import ErrorEnvelope
from ...models.template_status import TemplateStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    category: BroadcastCategory | Unset = UNSET,
    status: TemplateStatus | Unset = UNSET,
) -> dict[str, Any]:
    params: dict[str, Any] = {}

    params["limit"] = limit

    json_starting_after: str | Unset = UNSET
    if not isinstance(starting_after, Unset):
        json_starting_after = str(starting_after)
    params["starting_after"] = json_starting_after

    json_category: str | Unset = UNSET
    if not isinstance(category, Unset):
        json_category = category

    params["category"] = json_category

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/business/templates",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeTemplateList | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeTemplateList.from_dict(response.json())

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
) -> Response[EnvelopeTemplateList | ErrorEnvelope]:
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
    category: BroadcastCategory | Unset = UNSET,
    status: TemplateStatus | Unset = UNSET,
) -> Response[EnvelopeTemplateList | ErrorEnvelope]:
    """The business's templates, newest first, each at its newest version (any role): active ones
    unless `status=archived`.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        category (BroadcastCategory | Unset): What a broadcast may send.
        status (TemplateStatus | Unset): A template's status.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeTemplateList | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        category=category,
        status=status,
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
    category: BroadcastCategory | Unset = UNSET,
    status: TemplateStatus | Unset = UNSET,
) -> EnvelopeTemplateList | ErrorEnvelope | None:
    """The business's templates, newest first, each at its newest version (any role): active ones
    unless `status=archived`.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        category (BroadcastCategory | Unset): What a broadcast may send.
        status (TemplateStatus | Unset): A template's status.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeTemplateList | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        limit=limit,
        starting_after=starting_after,
        category=category,
        status=status,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    category: BroadcastCategory | Unset = UNSET,
    status: TemplateStatus | Unset = UNSET,
) -> Response[EnvelopeTemplateList | ErrorEnvelope]:
    """The business's templates, newest first, each at its newest version (any role): active ones
    unless `status=archived`.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        category (BroadcastCategory | Unset): What a broadcast may send.
        status (TemplateStatus | Unset): A template's status.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeTemplateList | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        category=category,
        status=status,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    category: BroadcastCategory | Unset = UNSET,
    status: TemplateStatus | Unset = UNSET,
) -> EnvelopeTemplateList | ErrorEnvelope | None:
    """The business's templates, newest first, each at its newest version (any role): active ones
    unless `status=archived`.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        category (BroadcastCategory | Unset): What a broadcast may send.
        status (TemplateStatus | Unset): A template's status.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeTemplateList | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            starting_after=starting_after,
            category=category,
            status=status,
        )
    ).parsed
