from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_follow import EnvelopeFollow
from ...models.error_envelope import ErrorEnvelope
from ...models.put_follow_body import PutFollowBody
from ...types import Response


def _get_kwargs(
    business_account_id: UUID,
    *,
    body: PutFollowBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/businesses/{business_account_id}/follow".format(
            business_account_id=quote(str(business_account_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeFollow | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeFollow.from_dict(response.json())

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
) -> Response[EnvelopeFollow | ErrorEnvelope]:
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
    body: PutFollowBody,
) -> Response[EnvelopeFollow | ErrorEnvelope]:
    """Follow a live business (again); `marketing_opt_in` defaults to false.

    Args:
        business_account_id (UUID):
        body (PutFollowBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeFollow | ErrorEnvelope]
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
    body: PutFollowBody,
) -> EnvelopeFollow | ErrorEnvelope | None:
    """Follow a live business (again); `marketing_opt_in` defaults to false.

    Args:
        business_account_id (UUID):
        body (PutFollowBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeFollow | ErrorEnvelope
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
    body: PutFollowBody,
) -> Response[EnvelopeFollow | ErrorEnvelope]:
    """Follow a live business (again); `marketing_opt_in` defaults to false.

    Args:
        business_account_id (UUID):
        body (PutFollowBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeFollow | ErrorEnvelope]
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
    body: PutFollowBody,
) -> EnvelopeFollow | ErrorEnvelope | None:
    """Follow a live business (again); `marketing_opt_in` defaults to false.

    Args:
        business_account_id (UUID):
        body (PutFollowBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeFollow | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            business_account_id=business_account_id,
            client=client,
            body=body,
        )
    ).parsed
