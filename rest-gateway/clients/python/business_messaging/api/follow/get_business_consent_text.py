from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_consent_text_or_null import EnvelopeConsentTextOrNull
from ...models.error_envelope import ErrorEnvelope
from ...types import Response


def _get_kwargs(
    business_account_id: UUID,
) -> dict[str, Any]:
    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/businesses/{business_account_id}/consent-text".format(
            business_account_id=quote(str(business_account_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeConsentTextOrNull | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeConsentTextOrNull.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

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
) -> Response[EnvelopeConsentTextOrNull | ErrorEnvelope]:
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
) -> Response[EnvelopeConsentTextOrNull | ErrorEnvelope]:
    """A business's consent wording in force, shown to the user beside the marketing opt-in (name
    its `version` when following or opting in); `data` is null when the business set none.

    Args:
        business_account_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeConsentTextOrNull | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        business_account_id=business_account_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    business_account_id: UUID,
    *,
    client: AuthenticatedClient,
) -> EnvelopeConsentTextOrNull | ErrorEnvelope | None:
    """A business's consent wording in force, shown to the user beside the marketing opt-in (name
    its `version` when following or opting in); `data` is null when the business set none.

    Args:
        business_account_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeConsentTextOrNull | ErrorEnvelope
    """

    return sync_detailed(
        business_account_id=business_account_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    business_account_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[EnvelopeConsentTextOrNull | ErrorEnvelope]:
    """A business's consent wording in force, shown to the user beside the marketing opt-in (name
    its `version` when following or opting in); `data` is null when the business set none.

    Args:
        business_account_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeConsentTextOrNull | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        business_account_id=business_account_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    business_account_id: UUID,
    *,
    client: AuthenticatedClient,
) -> EnvelopeConsentTextOrNull | ErrorEnvelope | None:
    """A business's consent wording in force, shown to the user beside the marketing opt-in (name
    its `version` when following or opting in); `data` is null when the business set none.

    Args:
        business_account_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeConsentTextOrNull | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            business_account_id=business_account_id,
            client=client,
        )
    ).parsed
