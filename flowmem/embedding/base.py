"""The embedding interface: texts in, unit-length float32 rows out."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from flowmem.core.backend import Backend, BackendKind, BackendParams
from flowmem.embedding.turns import Turns
from flowmem.vector_store.base import normalise

TextKind = Literal["query", "document"]


class EmbeddingParams(BackendParams):
    batch_size: int = Field(64, ge=1, description="texts per request / forward pass")
    remember: int = Field(
        0,
        ge=0,
        description="how many (text, kind) -> vector results to keep, least recently used dropped first, so a text "
        "embedded again is not computed again (0: none kept; a text repeated within one call is computed once either "
        "way). For models whose vectors depend on the text alone",
    )
    query_first_ms: float = Field(
        100.0,
        ge=0,
        description="with calls taking turns (a server: limit_concurrency), a query waiting for the model goes before "
        "document calls that have waited less than this many ms (a person waits on a search; an add's texts can "
        "wait a little); 0: strictly in order of arrival",
    )


class EmbeddingModel(Backend):
    """Turns texts into vectors.

    ``kind`` tells asymmetric models (e5: ``query:``/``passage:``) which side a text is on;
    symmetric models ignore it. Implementations embed one batch in ``_embed_batch``; batching,
    normalisation, shape checks, computing each distinct text once (and, with ``remember``, reusing what was
    computed before) and the concurrency bound (:meth:`limit_concurrency`) live here.
    """

    kind: ClassVar[BackendKind] = "embedding_model"
    params: EmbeddingParams

    def __init__(self, params: BackendParams | None = None, *, name: str = "default"):
        super().__init__(params, name=name)
        self._turns: Turns[TextKind] | None = None  # set by limit_concurrency
        # The embed_one calls under way, by (text, kind): later identical calls join them.
        self._inflight: dict[tuple[str, TextKind], _Shared] = {}
        self._kept: OrderedDict[tuple[str, TextKind], np.ndarray] = OrderedDict()  # params.remember, LRU order
        self.computed = 0  # texts the model itself has embedded (repeats and remembered texts not counted)
        self.computations = 0  # model calls for them (several waiting calls joined are one: limit_concurrency)
        self.cpu_seconds = 0.0  # the CPU those took on this machine, where a model counts it (local)

    def limit_concurrency(self, calls: int, joined: int | None = None) -> None:
        """Let at most ``calls`` model computations run at once; later calls wait their turn in order of arrival (a
        query before document calls that have waited less than ``query_first_ms``), and those waiting when a turn
        comes are computed with it (same kind) while their texts together are at most ``joined`` (default and at
        most: ``batch_size``); a call of more texts is still computed whole, alone
        (:class:`~flowmem.embedding.turns.Turns`).

        A server sets this: a model computing on the machine's cores (the local e5) gets slower for everyone
        when several calls share the cores with searches, so requests queue for it instead, and the queries of
        concurrent searches are embedded in one model call.
        """
        self._turns = Turns(
            calls,
            min(joined or self.params.batch_size, self.params.batch_size),
            self._model_rows,
            first="query",
            patience=self.params.query_first_ms / 1000,
        )
        self._share_cores(calls)

    @property
    def queued(self) -> int:
        """How many :meth:`embed` calls are waiting for their turn (:meth:`limit_concurrency`) right now."""
        return self._turns.waiting if self._turns is not None else 0

    @property
    def turns_taken(self) -> int:
        """How many :meth:`embed` calls have had their turn (:meth:`limit_concurrency`) since the start."""
        return self._turns.turns_taken if self._turns is not None else 0

    @property
    def waited_seconds(self) -> float:
        """The seconds those calls waited for their turn, summed (wall clock)."""
        return self._turns.waited if self._turns is not None else 0.0

    @property
    def computing_seconds(self) -> float:
        """The seconds the model's computations took at their turns, summed (wall clock, from the turn to the rows)."""
        return self._turns.computing if self._turns is not None else 0.0

    def _share_cores(self, calls: int) -> None:
        """Hook for models that compute on this machine: use fewer threads per call when ``calls`` run at once
        beside a server's other work (override; remote models ignore it)."""

    @property
    def dims(self) -> int:
        """The width of the vectors this model returns."""
        known = self.known_dims()
        if known is None:
            raise ValueError(f"embedding_model '{self.name}' does not know its dims before its first call")
        return known

    def known_dims(self) -> int | None:
        """The vector width if known without calling the model (override; ``None`` = learn it on first call)."""
        return None

    @property
    def model_id(self) -> str:
        """A name for the model, recorded with the vectors it made."""
        return self.backend_name

    async def embed(self, texts: Sequence[str], *, kind: TextKind = "document") -> np.ndarray:
        """Embed ``texts`` into a ``(len(texts), dims)`` float32 matrix of unit rows.

        A text given twice is computed once; with ``remember`` > 0, a text embedded (as this kind) by an
        earlier call still kept is not computed again. The rows are the caller's own (copies).
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; wrap a single text in a list")
        if not texts:
            return np.zeros((0, self.known_dims() or 0), dtype=np.float32)
        rows = {text: row for text in texts if (row := self._recall(text, kind)) is not None}
        todo = [text for text in dict.fromkeys(texts) if text not in rows]
        if todo:
            rows.update(zip(todo, await self._compute(todo, kind), strict=True))
            for text in todo:
                self._keep(text, kind, rows[text])
        return np.stack([rows[text] for text in texts])

    async def _compute(self, texts: list[str], kind: TextKind) -> np.ndarray:
        """The model's unit rows for ``texts`` (distinct), at their turn (:meth:`limit_concurrency`)."""
        if self._turns is None:
            return await self._model_rows(texts, kind)
        return await self._turns.rows(texts, kind)

    async def _model_rows(self, texts: list[str], kind: TextKind) -> np.ndarray:
        """The model's unit rows for ``texts``, in batches of ``batch_size``."""
        size = self.params.batch_size
        parts = [await self._embed_batch(texts[i : i + size], kind) for i in range(0, len(texts), size)]
        matrix = np.concatenate(parts) if len(parts) > 1 else parts[0]
        expected = self.known_dims()
        if matrix.ndim != 2 or matrix.shape[0] != len(texts) or (expected is not None and matrix.shape[1] != expected):
            want = (len(texts), expected if expected is not None else "?")
            raise ValueError(f"embedding_model '{self.name}' returned shape {matrix.shape}, expected {want}")
        self.computed += len(texts)
        self.computations += 1
        return normalise(matrix)

    def _recall(self, text: str, kind: TextKind) -> np.ndarray | None:
        row = self._kept.get((text, kind))
        if row is not None:
            self._kept.move_to_end((text, kind))
        return row

    def _keep(self, text: str, kind: TextKind, row: np.ndarray) -> None:
        if self.params.remember:
            self._kept[(text, kind)] = row.copy()  # not a view holding its whole batch
            while len(self._kept) > self.params.remember:
                self._kept.popitem(last=False)

    async def embed_one(self, text: str, *, kind: TextKind = "query") -> np.ndarray:
        """One text's unit vector (a query by default).

        Calls for the same text and kind while one is under way share its result: the parallel branches of
        one flow (retrieval beside the facts block of ``chat_context``) embed the query once, not once each.
        The sharing ends with the call: a later call computes afresh, unless the model keeps what it computed
        (``remember``).
        When every caller is cancelled (a parallel branch failed), the computation is cancelled and awaited
        before the last one returns: no task outlives its callers, nor the event loop.
        """
        key = (text, kind)
        kept = self._recall(text, kind)
        if kept is not None:
            # Remembered: no task to share (its hop through the event loop let a parallel branch's request go first:
            # a flow's vector search left ~2 ms after its word search, issue 24).
            row: np.ndarray = kept.copy()
            return row
        shared = self._inflight.get(key)
        if shared is None:
            shared = self._inflight[key] = _Shared(asyncio.ensure_future(self._embed_row(text, kind)))
            shared.task.add_done_callback(lambda _: self._inflight.pop(key, None))
        shared.waiters += 1
        try:
            return await asyncio.shield(shared.task)
        finally:
            shared.waiters -= 1
            if not shared.waiters and not shared.task.done():
                shared.task.cancel()
                await asyncio.wait([shared.task])

    async def _embed_row(self, text: str, kind: TextKind) -> np.ndarray:
        matrix = await self.embed([text], kind=kind)
        row: np.ndarray = matrix[0]
        return row

    async def _embed_batch(self, texts: list[str], kind: TextKind) -> np.ndarray:
        raise NotImplementedError


@dataclass
class _Shared:
    """One embed_one computation under way, and how many callers wait for it."""

    task: asyncio.Future[np.ndarray]
    waiters: int = 0
