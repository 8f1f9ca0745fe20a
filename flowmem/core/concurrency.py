"""Awaiting several things at once without leaving any running: the one cancel-on-failure helper.

``asyncio.gather`` alone raises the first failure and leaves the other awaitables running (their
results, and any failures of their own, are then lost); Python 3.10 has no ``TaskGroup``. The
flow executor's parallel branches and the Elasticsearch store's concurrent bulk chunks both want
the same thing: run concurrently, and on the first failure cancel the rest and wait until they
have stopped before raising. This module sits below both (it imports nothing of flowmem).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

T = TypeVar("T")
# Makes the exception to raise from the first failure and the others (see gather_cancelling).
Combine = Callable[[BaseException, list[BaseException]], BaseException]


async def gather_cancelling(aws: Iterable[Awaitable[T]], *, combine: Combine | None = None) -> list[T]:
    """Await ``aws`` concurrently and return their results in the order given.

    When one fails, the others still running are cancelled and awaited (none outlives the call),
    then the first failure is raised. Being cancelled itself, the call cancels them all the same.

    Args:
        aws: The awaitables (coroutines, tasks or futures).
        combine: Given the first failure and every other one — those that failed at the same time,
            or while being cancelled — returns the exception to raise (the flow executor reports
            them all); without it the first failure is raised as it is.

    Returns:
        The results, one per awaitable, in the order given.

    Raises:
        BaseException: The first failure (the earliest given of those failed when it was noticed),
            or what ``combine`` made of the failures.
    """
    tasks = [asyncio.ensure_future(aw) for aw in aws]
    if not tasks:
        return []
    noticed: list[asyncio.Future[T]] = []
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        noticed = [task for task in tasks if task.done()]
    finally:
        pending = [task for task in tasks if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
    # First the failures that ended the wait, then any raised by a task while it was being cancelled.
    seen = set(noticed)
    later = [task for task in tasks if task not in seen]
    errors = [err for task in noticed + later if not task.cancelled() and (err := task.exception()) is not None]
    if errors:
        first, others = errors[0], errors[1:]
        raise first if combine is None else combine(first, others)
    return [task.result() for task in tasks]
