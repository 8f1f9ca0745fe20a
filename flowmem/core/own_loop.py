"""An event loop of one's own, for synchronous callers: the app's ``run_sync`` and the remote client's sync calls.

A synchronous call runs its coroutine on a loop made on first use and kept (so connection pools and backends made on
it stay usable call after call), never inside a running loop (that would block it: the caller is told to await
instead), and the loop is closed with what it holds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from flowmem.core.errors import FlowmemError

T = TypeVar("T")


class OwnLoop:
    """A loop made on first use for synchronous callers; ``advice`` says what to do inside a running loop."""

    __slots__ = ("_advice", "_loop")

    def __init__(self, advice: str) -> None:
        self._advice = advice
        self._loop: asyncio.AbstractEventLoop | None = None

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` to completion on the own loop (refused, and closed unrun, inside a running loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            coroutine.close()
            raise FlowmemError(f"a synchronous call cannot run inside an event loop; {self._advice}")
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop.run_until_complete(coroutine)

    def close(self, closing: Callable[[], Coroutine[Any, Any, None]]) -> bool:
        """Run ``closing()`` on the own loop and close it; False when no loop was ever made (nothing done)."""
        if self._loop is None:
            return False
        try:
            self._loop.run_until_complete(closing())
        finally:
            self._loop.close()
            self._loop = None
        return True
