"""Shared refreshes: concurrent writers of one Elasticsearch store wait for one refresh instead of one each.

A write returns when it is searchable, so each write ends with a refresh of the indices it wrote (see
:mod:`flowmem.vector_store.elasticsearch`). Every forced refresh writes a new Lucene segment per
index and shard, and the segments must later be merged: under a server's load (a few adds a second)
that was most of the node's CPU, more than the searches (``_nodes/hot_threads``: the refresh thread
20-40 % of a core, the merges up to 20 %, the searches 3 %). Writers that finish while a refresh is
running now share the next one, and rounds start at least ``spacing`` seconds apart (the store's
``refresh_spacing``): a lone write is refreshed at once, but under a stream of writes (a server's
adds) each waits at most ``spacing`` and the node writes at most one segment per index that often,
not one per write (a memories-index refresh costs Elasticsearch ~15 ms of CPU however small the write).

The guarantee is unchanged: a writer waits for a refresh that *started after* it asked, so
everything it wrote before asking is in it. Writers that ask while no refresh is running get one at
once (if the last one started ``spacing`` ago or more); writers that ask while one is running, or too
soon after one started, join the single refresh queued behind it, which covers the union of their indices.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable


class _Round:
    """One refresh to come: the indices its writers wrote, and the task that runs it."""

    def __init__(self) -> None:
        self.names: dict[str, None] = {}  # ordered set: the request names indices in the order first asked
        self.task: asyncio.Task[None] | None = None


class SharedRefresh:
    """Refreshes indices for many concurrent writers, one refresh at a time (see the module docstring).

    Args:
        refresh: Refreshes the given indices now (one request); raises if Elasticsearch refuses.
        spacing: Seconds at least between the starts of two refreshes (0: back to back).
    """

    def __init__(self, refresh: Callable[[list[str]], Awaitable[None]], spacing: float = 0.0):
        self._refresh = refresh
        self._spacing = spacing
        self._last_start: float | None = None  # time.monotonic() when the last refresh started
        self._lock: asyncio.Lock | None = None
        self._open: _Round | None = None  # the round not yet started, which new writers join
        self.requests = 0  # refreshes sent (for tests and benchmarks)

    async def refresh(self, names: Iterable[str]) -> None:
        """Return once a refresh of ``names`` that started after this call has finished.

        Raises:
            Exception: What the refresh raised (every writer sharing it gets the error).
        """
        wanted = list(names)
        if not wanted:
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        round_ = self._open
        if round_ is None:
            round_ = self._open = _Round()
            round_.task = asyncio.ensure_future(self._run(round_, self._lock))
        round_.names.update(dict.fromkeys(wanted))
        assert round_.task is not None
        # shield: a writer that gives up (a request timeout) must not cancel the others' refresh
        await asyncio.shield(round_.task)

    async def _run(self, round_: _Round, lock: asyncio.Lock) -> None:
        async with lock:  # behind the refresh running now, if any: it may have started before our writes
            wait = 0.0 if self._last_start is None else self._last_start + self._spacing - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)  # writers asking meanwhile still join this round (open until it starts)
            self._last_start = time.monotonic()
            if self._open is round_:
                self._open = None  # from here on, new writers need a later refresh: they open the next round
            self.requests += 1
            await self._refresh(list(round_.names))
