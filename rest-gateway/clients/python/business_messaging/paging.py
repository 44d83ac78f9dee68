"""Paging through the paged lists: history, deliveries, followers, broadcasts and events.

Each of these answers ``{<items>, "has_more"}`` newest first; the next page is asked for with
``starting_after`` = the last item's id (a follower's ``user_id``). Events can also be read
oldest first after a known one (``after``), as a poller does. (Written by hand.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from types import ModuleType
from typing import Any

from .session import unwrap

__all__ = ["paginate", "apaginate"]

_LISTS = ("messages", "deliveries", "followers", "broadcasts", "events")


def _page(data: Any) -> tuple[list[Any], bool]:
    for name in _LISTS:
        items = getattr(data, name, None)
        if isinstance(items, list):
            return items, bool(getattr(data, "has_more", False))
    raise TypeError(f"{type(data).__name__} is not a paged list")


def _cursor(item: Any) -> Any:
    # Followers page on their user id; every other list on the item's id.
    return item.id if hasattr(item, "id") else item.user_id


def _call(operation: ModuleType | Callable[..., Any], name: str) -> Callable[..., Any]:
    return getattr(operation, name) if isinstance(operation, ModuleType) else operation


def paginate(operation: ModuleType | Callable[..., Any], **kwargs: Any) -> Iterator[Any]:
    """Every item of a paged list, page after page, fetched as the iteration needs them.

    ``operation`` is a generated list module (``api.messages.list_messages``) or its ``sync``
    function; ``kwargs`` are its arguments (``client``, ``limit``, filters). With ``after``
    (events only) it reads the events committed after that one, oldest first, until none are
    left; otherwise it follows ``starting_after`` from the newest::

        for message in paginate(list_messages, client=client, status="delivered", limit=100):
            ...
    """
    call = _call(operation, "sync")
    key = "after" if "after" in kwargs else "starting_after"
    while True:
        items, has_more = _page(unwrap(call(**kwargs)))
        yield from items
        if not items or not has_more:
            return
        kwargs[key] = _cursor(items[-1])


async def apaginate(operation: ModuleType | Callable[..., Any], **kwargs: Any) -> AsyncIterator[Any]:
    """:func:`paginate` for the ``asyncio`` functions: ``async for item in apaginate(...)``."""
    call = _call(operation, "asyncio")
    key = "after" if "after" in kwargs else "starting_after"
    while True:
        items, has_more = _page(unwrap(await call(**kwargs)))
        for item in items:
            yield item
        if not items or not has_more:
            return
        kwargs[key] = _cursor(items[-1])
