from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_template_body import CreateTemplateBody
from ...models.envelope_template import EnvelopeTemplate
from ...models.error_envelope import ErrorEnvelope
from ...types import Response


def _get_kwargs(
    *,
    body: CreateTemplateBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/business/templates",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeTemplate | ErrorEnvelope | None:
    if response.status_code == 201:
        response_201 = EnvelopeTemplate.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

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
) -> Response[EnvelopeTemplate | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateTemplateBody,
) -> Response[EnvelopeTemplate | ErrorEnvelope]:
    """Create a template at version 1 (owner, admin).

     Every check names the variant and the variable: each variant uses exactly the declared
    variables, placeholders are `{{name}}` exactly, the rendering with every variable at its
    `max_length` fits (4,096 characters; button URLs stay https URLs).

    Args:
        body (CreateTemplateBody): A new template.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeTemplate | ErrorEnvelope]
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
    body: CreateTemplateBody,
) -> EnvelopeTemplate | ErrorEnvelope | None:
    """Create a template at version 1 (owner, admin).

     Every check names the variant and the variable: each variant uses exactly the declared
    variables, placeholders are `{{name}}` exactly, the rendering with every variable at its
    `max_length` fits (4,096 characters; button URLs stay https URLs).

    Args:
        body (CreateTemplateBody): A new template.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeTemplate | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateTemplateBody,
) -> Response[EnvelopeTemplate | ErrorEnvelope]:
    """Create a template at version 1 (owner, admin).

     Every check names the variant and the variable: each variant uses exactly the declared
    variables, placeholders are `{{name}}` exactly, the rendering with every variable at its
    `max_length` fits (4,096 characters; button URLs stay https URLs).

    Args:
        body (CreateTemplateBody): A new template.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeTemplate | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateTemplateBody,
) -> EnvelopeTemplate | ErrorEnvelope | None:
    """Create a template at version 1 (owner, admin).

     Every check names the variant and the variable: each variant uses exactly the declared
    variables, placeholders are `{{name}}` exactly, the rendering with every variable at its
    `max_length` fits (4,096 characters; button URLs stay https URLs).

    Args:
        body (CreateTemplateBody): A new template.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeTemplate | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
