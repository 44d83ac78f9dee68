from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_consent_text import EnvelopeConsentText
from ...models.error_envelope import ErrorEnvelope
from ...models.put_consent_text_body import PutConsentTextBody
from ...types import Response


def _get_kwargs(
    *,
    body: PutConsentTextBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/business/consent-text",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeConsentText | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeConsentText.from_dict(response.json())

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
) -> Response[EnvelopeConsentText | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PutConsentTextBody,
) -> Response[EnvelopeConsentText | ErrorEnvelope]:
    """Set the consent wording (owner, admin): a new version, unless `text` is the wording in force
    (then nothing changes and that version answers). Earlier versions are kept: each marketing
    opt-in names the version it was given under.

    Args:
        body (PutConsentTextBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeConsentText | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: PutConsentTextBody,
) -> EnvelopeConsentText | ErrorEnvelope | None:
    """Set the consent wording (owner, admin): a new version, unless `text` is the wording in force
    (then nothing changes and that version answers). Earlier versions are kept: each marketing
    opt-in names the version it was given under.

    Args:
        body (PutConsentTextBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeConsentText | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PutConsentTextBody,
) -> Response[EnvelopeConsentText | ErrorEnvelope]:
    """Set the consent wording (owner, admin): a new version, unless `text` is the wording in force
    (then nothing changes and that version answers). Earlier versions are kept: each marketing
    opt-in names the version it was given under.

    Args:
        body (PutConsentTextBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeConsentText | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PutConsentTextBody,
) -> EnvelopeConsentText | ErrorEnvelope | None:
    """Set the consent wording (owner, admin): a new version, unless `text` is the wording in force
    (then nothing changes and that version answers). Earlier versions are kept: each marketing
    opt-in names the version it was given under.

    Args:
        body (PutConsentTextBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeConsentText | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
