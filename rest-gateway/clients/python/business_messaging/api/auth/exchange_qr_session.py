from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_qr_token import EnvelopeQrToken
from ...models.error_envelope import ErrorEnvelope
from ...types import Response


def _get_kwargs(
    id: UUID,
    *,
    x_service_qr_secret: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["X-Service-QR-Secret"] = x_service_qr_secret

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/auth/qr/sessions/{id}/exchange".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeQrToken | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeQrToken.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

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
) -> Response[EnvelopeQrToken | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    x_service_qr_secret: str,
) -> Response[EnvelopeQrToken | ErrorEnvelope]:
    """Exchange an approved session, once, for an access token (browser, with its secret).

    Args:
        id (UUID):
        x_service_qr_secret (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeQrToken | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        id=id,
        x_service_qr_secret=x_service_qr_secret,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    x_service_qr_secret: str,
) -> EnvelopeQrToken | ErrorEnvelope | None:
    """Exchange an approved session, once, for an access token (browser, with its secret).

    Args:
        id (UUID):
        x_service_qr_secret (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeQrToken | ErrorEnvelope
    """

    return sync_detailed(
        id=id,
        client=client,
        x_service_qr_secret=x_service_qr_secret,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    x_service_qr_secret: str,
) -> Response[EnvelopeQrToken | ErrorEnvelope]:
    """Exchange an approved session, once, for an access token (browser, with its secret).

    Args:
        id (UUID):
        x_service_qr_secret (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeQrToken | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        id=id,
        x_service_qr_secret=x_service_qr_secret,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient | Client,
    x_service_qr_secret: str,
) -> EnvelopeQrToken | ErrorEnvelope | None:
    """Exchange an approved session, once, for an access token (browser, with its secret).

    Args:
        id (UUID):
        x_service_qr_secret (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeQrToken | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            x_service_qr_secret=x_service_qr_secret,
        )
    ).parsed
