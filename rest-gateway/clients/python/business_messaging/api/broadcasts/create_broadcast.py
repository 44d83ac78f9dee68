from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.envelope_broadcast import EnvelopeBroadcast
from ...models.error_envelope import ErrorEnvelope
from ...models.rich_broadcast import RichBroadcast
from ...models.templated_broadcast import TemplatedBroadcast
from ...models.text_broadcast import TextBroadcast
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: RichBroadcast | TemplatedBroadcast | TextBroadcast,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/business/broadcasts",
    }

    if isinstance(body, TextBroadcast):
        _kwargs["json"] = body.to_dict()
    elif isinstance(body, RichBroadcast):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeBroadcast | ErrorEnvelope | None:
    if response.status_code == 201:
        response_201 = EnvelopeBroadcast.from_dict(response.json())

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
) -> Response[EnvelopeBroadcast | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: RichBroadcast | TemplatedBroadcast | TextBroadcast,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[EnvelopeBroadcast | ErrorEnvelope]:
    """Broadcast to the business's whole audience (owner or admin).

     The audience is fixed when the broadcast starts: the business's active followers then.
    Each recipient's consent is checked again when their message is created; `marketing`
    reaches only those opted in. Messages go out at most `max_per_second`, spending the business
    send budget, behind every single and scheduled send. A replay of an Idempotency-Key answers
    201 with the broadcast as it is now; a key used by a send is 409 `idempotency_key_conflict`.

    Args:
        idempotency_key (None | str | Unset):
        body (RichBroadcast | TemplatedBroadcast | TextBroadcast): A new broadcast, as the
            document describes it: one shape per kind of content.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeBroadcast | ErrorEnvelope]
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
    body: RichBroadcast | TemplatedBroadcast | TextBroadcast,
    idempotency_key: None | str | Unset = UNSET,
) -> EnvelopeBroadcast | ErrorEnvelope | None:
    """Broadcast to the business's whole audience (owner or admin).

     The audience is fixed when the broadcast starts: the business's active followers then.
    Each recipient's consent is checked again when their message is created; `marketing`
    reaches only those opted in. Messages go out at most `max_per_second`, spending the business
    send budget, behind every single and scheduled send. A replay of an Idempotency-Key answers
    201 with the broadcast as it is now; a key used by a send is 409 `idempotency_key_conflict`.

    Args:
        idempotency_key (None | str | Unset):
        body (RichBroadcast | TemplatedBroadcast | TextBroadcast): A new broadcast, as the
            document describes it: one shape per kind of content.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeBroadcast | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: RichBroadcast | TemplatedBroadcast | TextBroadcast,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[EnvelopeBroadcast | ErrorEnvelope]:
    """Broadcast to the business's whole audience (owner or admin).

     The audience is fixed when the broadcast starts: the business's active followers then.
    Each recipient's consent is checked again when their message is created; `marketing`
    reaches only those opted in. Messages go out at most `max_per_second`, spending the business
    send budget, behind every single and scheduled send. A replay of an Idempotency-Key answers
    201 with the broadcast as it is now; a key used by a send is 409 `idempotency_key_conflict`.

    Args:
        idempotency_key (None | str | Unset):
        body (RichBroadcast | TemplatedBroadcast | TextBroadcast): A new broadcast, as the
            document describes it: one shape per kind of content.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeBroadcast | ErrorEnvelope]
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
    body: RichBroadcast | TemplatedBroadcast | TextBroadcast,
    idempotency_key: None | str | Unset = UNSET,
) -> EnvelopeBroadcast | ErrorEnvelope | None:
    """Broadcast to the business's whole audience (owner or admin).

     The audience is fixed when the broadcast starts: the business's active followers then.
    Each recipient's consent is checked again when their message is created; `marketing`
    reaches only those opted in. Messages go out at most `max_per_second`, spending the business
    send budget, behind every single and scheduled send. A replay of an Idempotency-Key answers
    201 with the broadcast as it is now; a key used by a send is 409 `idempotency_key_conflict`.

    Args:
        idempotency_key (None | str | Unset):
        body (RichBroadcast | TemplatedBroadcast | TextBroadcast): A new broadcast, as the
            document describes it: one shape per kind of content.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeBroadcast | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
