"""Searches taking turns: at most ``server.search_concurrency`` in the search flow at once, the others waiting in
order of arrival.

A search's cost is CPU (its query embedding, the flow's Python, the store's work) on a few cores. Beyond some
number at once, more searches in flight only share the same cores, each finishing later, and hold their memory
and the store's connections meanwhile; queued, they wait in order of arrival instead (uvicorn's and gunicorn's
worker limits bound the work in flight the same way, but refuse what is over; this queues it). The limit must
not be small: the searches in flight are what the embedding model joins into one batch (its CPU per text falls
with the batch), so a few at a time cost more CPU a search (BENCHMARKS.md, issue 24 session 12, 2 cores and 16
clients: the model's CPU a request +30-35 % with two or four at once, +10-16 % with six or eight, +2-4 % with ten
or twelve). The default, eight per core, leaves the batches whole; the spread of the waits is the embedder's to
keep small (``server.embedder_batch``).

Only searches queue (``POST /v1/search``, the MCP ``search_memories`` tool, the ``/ui`` search): writes, chat
turns, ``/healthz``, ``/readyz`` and ``/metrics`` never wait behind them. A search cancelled while it waits (its
client went away, ``server.request_timeout``) leaves the line; a freed place is handed straight to the first in
line, so a search arriving later never overtakes one that waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator


class SearchQueue:
    """At most ``limit`` holders at once; the others wait first come, first served.

    Counted since the start: ``turns`` (searches that had their turn), ``waited`` (seconds they waited for it,
    summed), ``peak`` (the most holders at once). Now: ``running`` and ``waiting``.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        self.limit = limit
        self.running = 0
        self.peak = 0
        self.turns = 0
        self.waited = 0.0
        self._waiting: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        """How many wait for their turn now."""
        return len(self._waiting)

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[float]:
        """Hold one of the ``limit`` places while the block runs; yields the seconds waited for it."""
        arrived = time.perf_counter()
        if self.running < self.limit and not self._waiting:
            self.running += 1  # a free place and nobody before this one
        else:
            place = asyncio.get_running_loop().create_future()
            self._waiting.append(place)
            try:
                await place  # set by _release, which has counted this search as running
            except asyncio.CancelledError:
                if place.done() and not place.cancelled():
                    self._release()  # handed the place just as it was cancelled: pass it on
                else:
                    self._waiting.remove(place)
                raise
        waited = time.perf_counter() - arrived
        self.turns += 1
        self.waited += waited
        self.peak = max(self.peak, self.running)
        try:
            yield waited
        finally:
            self._release()

    def _release(self) -> None:
        """Give the place to the first in line, or free it."""
        while self._waiting:
            place = self._waiting.popleft()
            if not place.done():
                place.set_result(None)  # its holder counts as running from now: nobody can take the place between
                return
        self.running -= 1
