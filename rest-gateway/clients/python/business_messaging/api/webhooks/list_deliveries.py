from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delivery_event_type import DeliveryEventType
from ...models.delivery_status import DeliveryStatus
from ...models.envelope_delivery_log import EnvelopeDeliveryLog
from ...models.error_envelope import ErrorEnvelope
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    webhook_id: UUID | Unset = UNSET,
    status: DeliveryStatus | Unset = UNSET,
    event_type: DeliveryEventType | Unset = UNSET,
    message_send_id: UUID | Unset = UNSET,
) -> dict[str, Any]:
    params: dict[str, Any] = {}

    params["limit"] = limit

    json_starting_after: str | Unset = UNSET
    if not isinstance(starting_after, Unset):
        json_starting_after = str(starting_after)
    params["starting_after"] = json_starting_after

    json_webhook_id: str | Unset = UNSET
    if not isinstance(webhook_id, Unset):
        json_webhook_id = str(webhook_id)
    params["webhook_id"] = json_webhook_id

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    json_event_type: str | Unset = UNSET
    if not isinstance(event_type, Unset):
        json_event_type = event_type

    params["event_type"] = json_event_type

    json_message_send_id: str | Unset = UNSET
    if not isinstance(message_send_id, Unset):
        json_message_send_id = str(message_send_id)
    params["message_send_id"] = json_message_send_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/business/webhook-deliveries",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EnvelopeDeliveryLog | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = EnvelopeDeliveryLog.from_dict(response.json())

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
) -> Response[EnvelopeDeliveryLog | ErrorEnvelope]:
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
    webhook_id: UUID | Unset = UNSET,
    status: DeliveryStatus | Unset = UNSET,
    event_type: DeliveryEventType | Unset = UNSET,
    message_send_id: UUID | Unset = UNSET,
) -> Response[EnvelopeDeliveryLog | ErrorEnvelope]:
    """The deliveries log, newest first, a page at a time, with attempts and retry status.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        webhook_id (UUID | Unset):
        status (DeliveryStatus | Unset): A webhook delivery's status.
        event_type (DeliveryEventType | Unset): An event type in the deliveries log: a
            subscribable event, or `webhook.test`.
        message_send_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeDeliveryLog | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        webhook_id=webhook_id,
        status=status,
        event_type=event_type,
        message_send_id=message_send_id,
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
    webhook_id: UUID | Unset = UNSET,
    status: DeliveryStatus | Unset = UNSET,
    event_type: DeliveryEventType | Unset = UNSET,
    message_send_id: UUID | Unset = UNSET,
) -> EnvelopeDeliveryLog | ErrorEnvelope | None:
    """The deliveries log, newest first, a page at a time, with attempts and retry status.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        webhook_id (UUID | Unset):
        status (DeliveryStatus | Unset): A webhook delivery's status.
        event_type (DeliveryEventType | Unset): An event type in the deliveries log: a
            subscribable event, or `webhook.test`.
        message_send_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeDeliveryLog | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        limit=limit,
        starting_after=starting_after,
        webhook_id=webhook_id,
        status=status,
        event_type=event_type,
        message_send_id=message_send_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    webhook_id: UUID | Unset = UNSET,
    status: DeliveryStatus | Unset = UNSET,
    event_type: DeliveryEventType | Unset = UNSET,
    message_send_id: UUID | Unset = UNSET,
) -> Response[EnvelopeDeliveryLog | ErrorEnvelope]:
    """The deliveries log, newest first, a page at a time, with attempts and retry status.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        webhook_id (UUID | Unset):
        status (DeliveryStatus | Unset): A webhook delivery's status.
        event_type (DeliveryEventType | Unset): An event type in the deliveries log: a
            subscribable event, or `webhook.test`.
        message_send_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EnvelopeDeliveryLog | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        limit=limit,
        starting_after=starting_after,
        webhook_id=webhook_id,
        status=status,
        event_type=event_type,
        message_send_id=message_send_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    starting_after: UUID | Unset = UNSET,
    webhook_id: UUID | Unset = UNSET,
    status: DeliveryStatus | Unset = UNSET,
    event_type: DeliveryEventType | Unset = UNSET,
    message_send_id: UUID | Unset = UNSET,
) -> EnvelopeDeliveryLog | ErrorEnvelope | None:
    """The deliveries log, newest first, a page at a time, with attempts and retry status.

    Args:
        limit (int | Unset):
        starting_after (UUID | Unset):
        webhook_id (UUID | Unset):
        status (DeliveryStatus | Unset): A webhook delivery's status.
        event_type (DeliveryEventType | Unset): An event type in the deliveries log: a
            subscribable event, or `webhook.test`.
        message_send_id (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EnvelopeDeliveryLog | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            starting_after=starting_after,
            webhook_id=webhook_id,
            status=status,
            event_type=event_type,
            message_send_id=message_send_id,
        )
    ).parsed
