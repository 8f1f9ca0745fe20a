"""Embedding calls taking turns at a model that computes a few at once, the waiting ones joined into one batch."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

Kind = TypeVar("Kind")


@dataclass(eq=False)
class _Call(Generic[Kind]):
    """One call's texts, their kind, and where its rows go."""

    texts: list[str]
    kind: Kind
    rows: asyncio.Future[np.ndarray]
    arrived: float = field(default_factory=time.perf_counter)
    group: list[_Call[Kind]] = field(default_factory=list)  # the calls computed with it, once it has its turn
    task: asyncio.Task[None] | None = None  # their computation


class Turns(Generic[Kind]):
    """At most ``calls`` computations at once; the calls that arrive meanwhile wait, in order of arrival.

    When a computation ends, the first waiting call goes next, joined by every later waiting call of the same
    kind while their texts fit one batch of ``batch_size``: searches waiting for their query vectors are one
    model call, not one each in a row (the local e5 streams its weights once for the batch; one query alone
    ~17 ms of a core, in a batch of 16 ~15 ms each, measured on a loaded 2-core machine). A server bounds the
    batch (``server.embedder_batch``, 8): when every waiting query joined, one call took them all (13 at times,
    under 16 clients) while the next took one, and the searches of the long computation were the tail of the
    latencies. The rows are those of ``compute`` on the joined texts, split back to each call.

    A call cancelled while it waits leaves the queue; one cancelled during its computation leaves it to the
    others of its group, and the computation is cancelled when none of them waits any more.

    Counted since the start (wall clock): the calls that had a turn (``turns_taken``), the seconds they
    ``waited`` for it, and the seconds computations ran (``computing``, summed over those running at once).
    """

    def __init__(
        self,
        calls: int,
        batch_size: int,
        compute: Callable[[list[str], Kind], Awaitable[np.ndarray]],
        *,
        first: Kind | None = None,
        patience: float = 0.0,
    ) -> None:
        if calls < 1:
            raise ValueError(f"calls must be at least 1, got {calls}")
        self.calls, self.batch_size, self._compute = calls, batch_size, compute
        self.first, self.patience = first, patience
        self._waiting: deque[_Call[Kind]] = deque()
        self._running = 0
        self.turns_taken, self.waited, self.computing = 0, 0.0, 0.0

    @property
    def waiting(self) -> int:
        """How many calls are waiting for their turn right now."""
        return len(self._waiting)

    async def rows(self, texts: list[str], kind: Kind) -> np.ndarray:
        """``compute``'s rows for ``texts``, at this call's turn (perhaps computed with other calls' texts)."""
        call = _Call(texts, kind, asyncio.get_running_loop().create_future())
        self._waiting.append(call)
        self._start()
        try:
            return await call.rows
        except asyncio.CancelledError:
            if call in self._waiting:
                self._waiting.remove(call)
            elif call.task is not None and not call.task.done() and all(c.rows.done() for c in call.group):
                call.task.cancel()
                await asyncio.wait([call.task])
            raise

    def _start(self) -> None:
        while self._running < self.calls and self._waiting:
            first = self._next()
            group, size = [first], len(first.texts)
            for other in list(self._waiting):
                if other.kind == first.kind and size + len(other.texts) <= self.batch_size:
                    self._waiting.remove(other)
                    group.append(other)
                    size += len(other.texts)
            self._running += 1
            now = time.perf_counter()
            self.turns_taken += len(group)
            self.waited += sum(now - call.arrived for call in group)
            task = asyncio.ensure_future(self._run(group))
            for call in group:
                call.group, call.task = group, task

    def _next(self) -> _Call[Kind]:
        """The call whose turn it is: the first waiting, unless a call of kind ``first`` waits behind calls of other
        kinds none of which has waited ``patience`` seconds yet (then that call: someone is waiting on a search)."""
        head = self._waiting[0]
        if self.first is None or head.kind == self.first or time.perf_counter() - head.arrived >= self.patience:
            return self._waiting.popleft()
        preferred = next((call for call in self._waiting if call.kind == self.first), head)
        self._waiting.remove(preferred)
        return preferred

    async def _run(self, group: list[_Call[Kind]]) -> None:
        started = time.perf_counter()
        try:
            texts = list(dict.fromkeys(text for call in group for text in call.texts))
            computed = await self._compute(texts, group[0].kind)
            where = {text: i for i, text in enumerate(texts)}
            for call in group:
                if not call.rows.done():
                    call.rows.set_result(computed[[where[text] for text in call.texts]])
        except asyncio.CancelledError:
            for call in group:
                call.rows.cancel()
            raise
        except Exception as error:
            for call in group:
                if not call.rows.done():
                    call.rows.set_exception(error)
        finally:
            self.computing += time.perf_counter() - started
            self._running -= 1
            with contextlib.suppress(RuntimeError):  # the loop is closing: nothing more starts
                self._start()
