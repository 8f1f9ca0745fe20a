"""The vector store interface.

Every call names the workspace (the tenant scope) it works in, and nothing a call does can
reach another workspace: the checks live here, in the base class, so no backend can forget
them. Backends implement the underscored methods.

Scores: ``search`` returns memories with ``scores["similarity"]`` = cosine similarity of the
(unit-length) query and memory vectors, in [-1, 1], on every backend; ``lexical_search`` with
``scores["lexical"]`` = BM25 of the query's words (:mod:`~flowmem.vector_store.lexical_text`).

Ids: every id a call names — workspace ids, memory ids (of memories and of history events), the
message ledger's user and message ids, session ids — follows one rule, ``rules.ID_RULE``, checked
here before any backend sees it, so every store accepts and refuses the same ids; on reads and
deletes too (no write could have stored such an id, and a read must not cache or send one). Only
``forget`` takes any workspace and user, to erase whatever a store holds. The rules themselves:
:mod:`~flowmem.vector_store.rules`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar

import numpy as np

from flowmem.core.backend import Backend, BackendKind, BackendParams
from flowmem.core.errors import InputError, Problem
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.scoring.keys import expanded_key
from flowmem.scoring.tokens import query_terms
from flowmem.vector_store.batch import AdjacentRead, Ledger, WriteBatch
from flowmem.vector_store.bulk_load import BulkLoadStore
from flowmem.vector_store.erasure import ErasureGate, Fence, fence_keys
from flowmem.vector_store.filters import NO_FILTER, MemoryFilter
from flowmem.vector_store.records import ForgetCounts, RecordStore
from flowmem.vector_store.rules import (
    DimensionMismatchError,
    ScopeError,
    UnsupportedFilterError,
    check_filter,
    check_ids,
    check_scope,
    check_user,
    check_width,
    normalise,
    one_width,
    shown,
)
from flowmem.vector_store.sessions import SessionStore
from flowmem.vector_store.turns import paged_turns

# Kept importable from here (they lived here before rules.py): the errors, and normalise (the embedding base uses it).
__all__ = [
    "SHARED_STATS", "SIMILARITY", "DimensionMismatchError", "Fence", "ForgetCounts", "Ledger", "ScopeError",
    "UnsupportedFilterError", "VectorStore", "WriteBatch", "normalise",
]  # fmt: skip

SIMILARITY = "similarity"
MAX_ADJACENT = 1_000  # memories per side of one adjacent() read: "around a memory" is a handful
# A place of turns_around(): (created_at, memory_id, its sources, filters); and turns, nearest first, each its memories.
TurnPlace = tuple[datetime, str, Sequence[str], MemoryFilter | None]
Turns = list[list[Memory]]
# The place newest() reads back from: after every memory a store holds (ids never come near it in that second).
END_OF_TIME, LAST_ID = datetime(9999, 12, 31, 23, 59, 59), "~"
# The keys of stats() that say nothing about any tenant: an allow-list, so a new store-wide figure
# is not shown to a caller scoped to one workspace until someone decides it may be.
SHARED_STATS = frozenset(
    {"backend", "path", "url", "server_version", "index", "index_exists", "dims", "similarity", "index_options",
     "history_index", "messages_index"}
)  # fmt: skip


class VectorStore(RecordStore, BulkLoadStore, SessionStore, Backend):
    """Where memories live. Subclasses implement ``_upsert``, ``_get``, ``_delete`` (or all of ``_write``),
    ``_search``, ``_lexical_search``, ``_iterate``, ``_adjacent``, ``_count``, ``_forget``, ``_dims`` and ``stats``, and
    declare ``filter_subjects``.

    What every store must do alike happens here, before and after the backend's part: the scope
    check of every call (and, where a read returns memories or events, dropping any of another
    workspace), the id rule, the width rule (writes and query vectors against :meth:`_dims`), and
    the filter check (a condition the backend cannot apply is refused, never ignored).
    """

    kind: ClassVar[BackendKind] = "vector_store"
    # What the backend's filters can test (filters.SUBJECT_TYPES); a condition on anything else is refused.
    filter_subjects: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, params: BackendParams | None = None, *, name: str = "default"):
        super().__init__(params, name=name)
        self._gate = ErasureGate()  # forget and the fenced writes of this store object (erasure, rule 3)

    # -- the public, scope-checked API ---------------------------------------------------------
    async def upsert(self, workspace_id: str, memories: Sequence[Memory]) -> None:
        """Insert or replace memories by id (idempotent). Each must carry a vector and belong to ``workspace_id``.

        Raises:
            ScopeError: A memory belongs to another workspace.
            InputError: A memory has no vector, or two share an id.
            DimensionMismatchError: Vectors are not as wide as the store's.
        """
        check_scope(workspace_id)
        if not memories:
            return
        memories = keyed(memories)
        vectors = await self._vectors(workspace_id, memories)
        await self._upsert(workspace_id, memories, vectors)

    async def fence(self, workspace_id: str, user_ids: Iterable[str] = ()) -> Fence:
        """The erasure generations of ``workspace_id`` and of ``user_ids`` now, for a write to be prepared under.

        Read it *before* reading what the write will change, and pass it to :meth:`write` (or
        :meth:`put_session`): if a ``forget`` of the workspace or of one of the users runs in between, the
        write is refused (:class:`~flowmem.core.errors.WriteConflictError`) and nothing of it stays
        (:mod:`~flowmem.vector_store.erasure`).
        """
        check_scope(workspace_id)
        keys = fence_keys(user_ids)
        check_ids("user", keys[1:])
        found = await self._generations(workspace_id, keys)
        return Fence(workspace_id, {key: found.get(key, 0) for key in keys})

    async def write(
        self,
        workspace_id: str,
        memories: Sequence[Memory] = (),
        *,
        history: Sequence[HistoryEvent] = (),
        user_id: str | None = None,
        memorized: Sequence[str] = (),
        deleted: Sequence[str] = (),
        fence: Fence | None = None,
        must_exist: Sequence[str] = (),
    ) -> int:
        """One step of the write path: upsert ``memories``, record ``history``, delete ``deleted``,
        mark messages ``memorized`` — refused whole if a forget ran since ``fence`` was read, or if a
        memory of ``must_exist`` is gone.

        Atomic where the store can be (``local``: one transaction; ``memory``); elsewhere the four
        happen in that order and each is idempotent (memory ids and history event ids are derived
        from their content), so a rerun after a crash finishes the job without duplicates. The
        history comes before the deletes: a crash between them leaves a ``delete`` event whose
        memory still exists (the rerun deletes it), never a deleted memory without its event.

        Args:
            workspace_id: The workspace everything belongs to.
            memories: Memories to insert or replace (each with a vector).
            history: Events to record (each of ``workspace_id``), typically with ``deleted``
                their ``delete`` events.
            user_id: Whose messages ``memorized`` are; required with ``memorized``. A message is
                identified by (workspace, user, message id): two users may both send ``m1``.
            memorized: Ids of ``user_id``'s messages the write path has now turned into memories.
            deleted: Ids of memories of ``workspace_id`` to delete (ids that are not there are skipped).
            fence: What :meth:`fence` said before the write's reads (``None``: no check).
            must_exist: Ids of ``memories`` that replace stored memories the caller read: each must still
                be stored when the write lands (an edit of a memory deleted meanwhile must not bring it back).

        Returns:
            How many of ``deleted`` existed (and are now gone).

        Raises:
            ScopeError: A memory or event of another workspace, or ``memorized`` without a user id.
            InputError: A memory id both in ``memories`` and in ``deleted``; a ``must_exist`` id not in ``memories``.
            WriteConflictError: A forget of the workspace or of a user of ``fence`` ran since it was read.
            NotFoundError: A memory of ``must_exist`` is no longer stored.
        """
        check_scope(workspace_id)
        for event in history:
            if event.workspace_id != workspace_id:
                raise ScopeError(f"history event of workspace '{event.workspace_id}' written to '{workspace_id}'")
        check_ids("history event of memory", (event.memory_id for event in history))
        if memorized:
            check_user(user_id)
            check_ids("message", memorized)
        doomed = list(dict.fromkeys(deleted))
        check_ids("memory", doomed)
        both = set(doomed).intersection(m.memory_id for m in memories)
        if both:
            why = "is both written and deleted in one write; write it or delete it"
            raise InputError([Problem(f"memory {shown(i)}", why) for i in sorted(both)])
        written = {m.memory_id for m in memories}
        stray = [i for i in dict.fromkeys(must_exist) if i not in written]
        if stray:
            why = "is in must_exist but not written; must_exist names memories of this write"
            raise InputError([Problem(f"memory {shown(i)}", why) for i in stray])
        if fence is not None and fence.workspace_id != workspace_id:
            raise ScopeError(f"a fence of workspace '{fence.workspace_id}' given to a write to '{workspace_id}'")
        if not (memories or history or memorized or doomed):
            return 0
        memories = keyed(memories)
        vectors = await self._vectors(workspace_id, memories) if memories else None
        ledger = (user_id, list(dict.fromkeys(memorized))) if memorized and user_id else None
        batch = WriteBatch(memories, vectors, list(history), ledger, doomed, fence, list(dict.fromkeys(must_exist)))
        async with self._gate.writing(workspace_id) if fence is not None else contextlib.nullcontext():
            return await self._write(workspace_id, batch)

    async def record_history(self, workspace_id: str, events: Sequence[HistoryEvent]) -> None:
        """Record changes made outside :meth:`write` (e.g. a delete from the CLI)."""
        await self.write(workspace_id, history=events)

    async def _vectors(self, workspace_id: str, memories: Sequence[Memory]) -> np.ndarray:
        """The memories' unit vectors, after the scope, id and width rules."""
        check_ids("memory", (m.memory_id for m in memories))
        problems, seen = [], set()
        for memory in memories:
            if memory.workspace_id != workspace_id:
                raise ScopeError(
                    f"memory {memory.memory_id} belongs to workspace '{memory.workspace_id}', "
                    f"not to '{workspace_id}' that this upsert writes to"
                )
            if memory.vector is None:
                problems.append(Problem(f"memory {memory.memory_id}", "has no vector; embed it before storing"))
            if memory.memory_id in seen:
                problems.append(Problem(f"memory {memory.memory_id}", "appears twice in one upsert"))
            seen.add(memory.memory_id)
        if problems:
            raise InputError(problems)
        check_width(self._place(), await self._dims(), one_width(m.vector for m in memories), "vectors")
        return normalise(np.stack([m.vector for m in memories]))

    async def get(self, workspace_id: str, ids: Sequence[str], *, with_vectors: bool = False) -> list[Memory]:
        """The memories with these ids in ``workspace_id``, in the order asked; unknown ids are skipped."""
        check_scope(workspace_id)
        check_ids("memory", ids)
        if not ids:
            return []
        found = await self._get(workspace_id, list(dict.fromkeys(ids)), with_vectors)
        return [m for m in found if m.workspace_id == workspace_id]

    async def stored_vectors(self, workspace_id: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored (unit) vectors of the memories with these ids in ``workspace_id``; unknown ids are left out.
        What :meth:`get` with ``with_vectors`` gives, without reading the records where a store holds the vectors
        apart (local: its index)."""
        check_scope(workspace_id)
        check_ids("memory", ids)
        return await self._stored_vectors(workspace_id, list(dict.fromkeys(ids))) if ids else {}

    async def similarities(self, workspace_id: str, vector: Any, ids: Sequence[str]) -> dict[str, float]:
        """The dot product of ``vector`` (unit length, as a query embedding is) with the stored vector of each memory
        of these ids in ``workspace_id`` — their cosine similarity; unknown ids, and vectors of another width, are
        left out. What ``np.dot`` of :meth:`stored_vectors` with ``vector`` gives, computed where the vectors are:
        Elasticsearch scores the ids on the node (a kNN search restricted to them), so no vector travels."""
        check_scope(workspace_id)
        check_ids("memory", ids)
        query = np.asarray(vector, dtype=np.float32)
        return await self._similarities(workspace_id, query, list(dict.fromkeys(ids))) if ids else {}

    async def delete(self, workspace_id: str, ids: Sequence[str]) -> int:
        """Delete these ids from ``workspace_id``; returns how many existed there."""
        # A write of deletes, scope-checked by write(). Its count cannot be post-filtered: every
        # backend keys deletes by (workspace, id), which conformance's tenant isolation proves.
        return await self.write(workspace_id, deleted=ids)

    async def search(
        self, workspace_id: str, vector: Any, top_k: int, filters: MemoryFilter | None = None
    ) -> list[Memory]:
        """The ``top_k`` memories most similar to ``vector``, best first, with ``scores["similarity"]``.

        Raises:
            DimensionMismatchError: ``vector`` is not as wide as the store's vectors.
            UnsupportedFilterError: ``filters`` has a condition this store cannot apply.
        """
        check_scope(workspace_id)
        filters = self._checked(filters)
        query = normalise(np.asarray(vector, dtype=np.float32))[0]
        check_width(self._place(), await self._dims(), len(query), "query vector")
        if top_k <= 0:
            return []
        found = await self._search(workspace_id, query, top_k, filters)
        return [m for m in found if m.workspace_id == workspace_id]

    async def search_many(
        self, workspace_id: str, vector: Any, searches: Sequence[tuple[int, MemoryFilter | None]]
    ) -> list[list[Memory]]:
        """Several searches (as :meth:`search`) with one query vector, each with its own ``top_k`` and filters,
        sent together where the store can (Elasticsearch: one ``_msearch`` instead of a round trip each).

        Returns:
            One result list per search, in order, each exactly what :meth:`search` returns for it.

        Raises:
            DimensionMismatchError: ``vector`` is not as wide as the store's vectors.
            UnsupportedFilterError: a search's filters have a condition this store cannot apply
                (checked for every search before any runs).
        """
        check_scope(workspace_id)
        checked = [(top_k, self._checked(filters)) for top_k, filters in searches]
        query = normalise(np.asarray(vector, dtype=np.float32))[0]
        check_width(self._place(), await self._dims(), len(query), "query vector")
        wanted = [(top_k, filters) for top_k, filters in checked if top_k > 0]
        results = iter(await self._search_many(workspace_id, query, wanted) if wanted else [])
        return [[m for m in next(results) if m.workspace_id == workspace_id] if k > 0 else [] for k, _ in checked]

    async def search_each(
        self, workspace_id: str, vectors: Sequence[Any], top_k: int, filters: MemoryFilter | None = None
    ) -> list[list[Memory]]:
        """:meth:`search` once for each of ``vectors``, with one ``top_k`` and filters, in one read where the store can
        (``local`` and ``memory``: one mask and one hop for all; otherwise a search each, sent together).

        Returns:
            One result list per vector, in order, each exactly what :meth:`search` returns for it.

        Raises:
            DimensionMismatchError: a vector is not as wide as the store's vectors.
            UnsupportedFilterError: ``filters`` has a condition this store cannot apply.
        """
        check_scope(workspace_id)
        filters = self._checked(filters)
        if not vectors:
            return []
        width = one_width(np.asarray(v) for v in vectors)
        check_width(self._place(), await self._dims(), width, "query vector")
        if top_k <= 0:
            return [[] for _ in vectors]
        queries = np.stack([normalise(np.asarray(v, dtype=np.float32))[0] for v in vectors])  # each as search does
        found = await self._search_each(workspace_id, queries, top_k, filters)
        return [[m for m in hits if m.workspace_id == workspace_id] for hits in found]

    async def lexical_search(
        self, workspace_id: str, text: str, top_k: int, filters: MemoryFilter | None = None
    ) -> list[Memory]:
        """The ``top_k`` memories best matching the words of ``text`` (BM25), best first, with ``scores["lexical"]``.

        Scope and filters as :meth:`search`; the query's terms are :func:`~flowmem.scoring.tokens.query_terms`
        (stop words left out), a memory's :func:`~flowmem.vector_store.lexical_text.lexical_document`.
        Only memories sharing a term come back. Scores rank within one search (see lexical_text).
        """
        check_scope(workspace_id)
        filters = self._checked(filters)
        terms = query_terms(text)
        if top_k <= 0 or not terms:
            return []
        found = await self._lexical_search(workspace_id, terms, top_k, filters)
        return [m for m in found if m.workspace_id == workspace_id]

    async def iterate(
        self,
        workspace_id: str,
        filters: MemoryFilter | None = None,
        batch_size: int = 500,
        *,
        with_vectors: bool = False,
    ) -> AsyncIterator[list[Memory]]:
        """Every matching memory of ``workspace_id``, in batches, ordered by (created_at, memory_id)."""
        check_scope(workspace_id)
        checked = self._checked(filters)
        if batch_size <= 0:
            raise InputError(Problem("iterate", f"batch_size must be positive, got {batch_size}"))
        async for batch in self._iterate(workspace_id, checked, batch_size, with_vectors):
            mine = [m for m in batch if m.workspace_id == workspace_id]
            if mine:
                yield mine

    async def adjacent(
        self,
        workspace_id: str,
        at: datetime,
        memory_id: str,
        filters: MemoryFilter | None = None,
        *,
        before: int,
        after: int,
        with_vectors: bool = False,
    ) -> tuple[list[Memory], list[Memory]]:
        """The ``before`` matching memories just before the place ``(at, memory_id)`` in the order of
        :meth:`iterate` and the ``after`` just after it, nearest first on each side; ``memory_id`` is on neither
        side (it need not be stored). One ordered, limited read per side: its cost does not grow with the
        memories stored at the same time (a bulk load creates thousands within a second).

        Ties of ``created_at`` are ordered by ``memory_id``; ``created_at`` compares to the second on the
        ``memory`` and ``local`` stores (their index keeps seconds), to the millisecond on Elasticsearch.

        Raises:
            InputError: ``before`` or ``after`` is negative or over :data:`MAX_ADJACENT`.
        """
        reads = self._adjacent_reads(workspace_id, [(at, memory_id, filters)], before, after, with_vectors)
        found = [await self._adjacent(workspace_id, read) for read in reads]
        return _around(workspace_id, reads, found)[0] if reads else ([], [])

    async def adjacent_many(
        self,
        workspace_id: str,
        places: Sequence[tuple[datetime, str, MemoryFilter | None]],
        *,
        before: int,
        after: int,
        with_vectors: bool = False,
    ) -> list[tuple[list[Memory], list[Memory]]]:
        """Several :meth:`adjacent` reads with the same limits, one per place ``(at, memory_id, filters)``, sent
        together where the store can (local: one hop to its thread and one records query for all of them).

        Returns:
            One ``(earlier, later)`` per place, in order, each exactly what :meth:`adjacent` returns for it.

        Raises:
            InputError: ``before`` or ``after`` is negative or over :data:`MAX_ADJACENT`.
        """
        reads = self._adjacent_reads(workspace_id, places, before, after, with_vectors)
        if not reads:
            return [([], []) for _ in places]
        return _around(workspace_id, reads, await self._adjacent_many(workspace_id, reads))

    async def turns_around(
        self,
        workspace_id: str,
        places: Sequence[TurnPlace],
        *,
        before: int,
        after: int,
        with_vectors: bool = False,
    ) -> list[tuple[Turns, Turns]]:
        """For each place ``(at, memory_id, sources, filters)``, the ``before`` turns said just before it and the
        ``after`` just after, in the order of :meth:`iterate`: :meth:`adjacent_many` counted in turns.

        A turn is the memories of one message (:mod:`~flowmem.vector_store.turns`): a message split into facts is
        several memories, one turn. The memories sharing a source with the place (``sources``: its message ids)
        are its own turn, on neither side. Each side is read only as far as its turns go (and, where the store
        cannot stop at a turn's end, one memory further): its cost is the turns wanted, not a guess of memories.

        Returns:
            One ``(earlier, later)`` per place, in order: the turns nearest first, each turn its memories nearest
            first; none of them ``memory_id``, all in scope.

        Raises:
            InputError: ``before`` or ``after`` is negative or over :data:`MAX_ADJACENT`.
        """
        plain = [(at, memory_id, flt) for at, memory_id, _, flt in places]
        reads = self._adjacent_reads(workspace_id, plain, before, after, with_vectors)
        if not reads:
            return [([], []) for _ in places]
        reads = [AdjacentRead(r.at, r.memory_id, r.filters, r.before, r.after, r.with_vectors, tuple(place[2]))
                 for r, place in zip(reads, places, strict=True)]  # fmt: skip
        found = await self._turns_around(workspace_id, reads)
        return [
            (_in_scope(workspace_id, read.memory_id, earlier), _in_scope(workspace_id, read.memory_id, later))
            for read, (earlier, later) in zip(reads, found, strict=True)
        ]

    def _adjacent_reads(
        self,
        workspace_id: str,
        places: Sequence[tuple[datetime, str, MemoryFilter | None]],
        before: int,
        after: int,
        with_vectors: bool,
    ) -> list[AdjacentRead]:
        """The checked reads of :meth:`adjacent_many` (none when both limits are 0)."""
        check_scope(workspace_id)
        check_ids("memory", [memory_id for _, memory_id, _ in places])
        reads = [AdjacentRead(at, memory_id, self._checked(flt), before, after, with_vectors)
                 for at, memory_id, flt in places]  # fmt: skip
        for side, count in (("before", before), ("after", after)):
            if not 0 <= count <= MAX_ADJACENT:
                raise InputError(Problem("adjacent", f"{side} must be 0 to {MAX_ADJACENT}, got {count}"))
        return [] if before == after == 0 else reads

    async def newest(
        self, workspace_id: str, filters: MemoryFilter | None = None, *, limit: int, with_vectors: bool = False
    ) -> list[Memory]:
        """The ``limit`` matching memories last in the order of :meth:`iterate` (created last), newest first.

        One ordered, limited read (:meth:`adjacent` back from the end of time): what "the user's latest facts"
        costs, however many memories the user has.

        Raises:
            InputError: ``limit`` is negative or over :data:`MAX_ADJACENT`.
        """
        earlier, _ = await self.adjacent(
            workspace_id, END_OF_TIME, LAST_ID, filters, before=limit, after=0, with_vectors=with_vectors
        )
        return earlier

    async def count(self, workspace_id: str, filters: MemoryFilter | None = None) -> int:
        """How many memories of ``workspace_id`` match."""
        check_scope(workspace_id)
        # A number cannot be post-filtered: every backend counts inside the workspace (a key or a
        # workspace term), which conformance proves against get/iterate of the same workspace.
        return await self._count(workspace_id, self._checked(filters))

    async def targets(self, workspace_id: str) -> list[str]:
        """Whom the memories of ``workspace_id`` are about: their distinct ``target``s, sorted."""
        check_scope(workspace_id)
        return sorted(await self._targets(workspace_id))

    def _checked(self, filters: MemoryFilter | None) -> MemoryFilter:
        """``filters`` (or none), after refusing conditions this store cannot apply."""
        if filters is None:
            return NO_FILTER
        check_filter(self._place(), filters, self.filter_subjects)
        return filters

    def _place(self) -> str:
        """The store as messages name it; backends add where it lives (a file, an index)."""
        return f"vector_store '{self.name}'"

    async def stats(self) -> dict[str, Any]:
        """What the store holds: backend facts, dims, and memories per workspace."""
        raise NotImplementedError

    async def workspace_stats(self, workspace_id: str) -> dict[str, Any]:
        """What the store holds for ``workspace_id``, and nothing about any other workspace.

        The backend facts of :meth:`stats` that describe no tenant (:data:`SHARED_STATS`: backend,
        where it lives, vector settings) plus ``workspace`` and its ``memories`` count. Store-wide
        figures (other workspaces' names and counts, totals, sizes, revisions) are left out.
        """
        check_scope(workspace_id)
        shared = {key: value for key, value in (await self.stats()).items() if key in SHARED_STATS}
        return {**shared, "workspace": workspace_id, "memories": await self.count(workspace_id)}

    async def check(self) -> list[tuple[str, str | None]]:
        """The store's own health checks, read-only: (what was checked, ``None`` when sound, else the problem).

        ``flowmem store check`` prints them. Stores with nothing to check but being reachable return ``[]``.
        """
        return []

    # -- what backends implement -------------------------------------------------------------
    async def _write(self, workspace_id: str, batch: WriteBatch) -> int:
        """In order (memories, history, deletes, ledger), each step idempotent; stores that can do it
        atomically override this. Returns how many of ``batch.deleted`` existed.

        Stores overriding it apply ``batch.fence`` and ``batch.must_exist`` (:mod:`~flowmem.vector_store.erasure`);
        this step-wise default cannot, and is for stores that do not take fences.
        """
        if batch.memories and batch.vectors is not None:
            await self._upsert(workspace_id, batch.memories, batch.vectors)
        if batch.history:
            await self._record_history(workspace_id, batch.history)
        existed = await self._delete(workspace_id, batch.deleted) if batch.deleted else 0
        if batch.ledger is not None:
            await self._mark_memorized(workspace_id, *batch.ledger)
        return existed

    async def _generations(self, workspace_id: str, keys: list[str]) -> dict[str, int]:
        """The erasure generations of ``keys`` (:data:`~flowmem.vector_store.erasure.WORKSPACE` and user ids);
        a key never forgotten may be left out (generation 0)."""
        raise NotImplementedError

    async def _dims(self) -> int | None:
        """The width of the vectors the store holds; ``None`` while it holds none (the first write sets it)."""
        raise NotImplementedError

    async def _upsert(self, workspace_id: str, memories: list[Memory], vectors: np.ndarray) -> None:
        raise NotImplementedError

    async def _get(self, workspace_id: str, ids: list[str], with_vectors: bool) -> list[Memory]:
        raise NotImplementedError

    async def _delete(self, workspace_id: str, ids: list[str]) -> int:
        raise NotImplementedError

    async def _stored_vectors(self, workspace_id: str, ids: list[str]) -> dict[str, np.ndarray]:
        """The vectors of :meth:`stored_vectors`; this default reads the records (:meth:`_get`)."""
        found = await self._get(workspace_id, ids, True)
        return {m.memory_id: m.vector for m in found if m.workspace_id == workspace_id and m.vector is not None}

    async def _similarities(self, workspace_id: str, query: np.ndarray, ids: list[str]) -> dict[str, float]:
        """The cosines of :meth:`similarities`; this default takes the dot products of :meth:`_stored_vectors`."""
        vectors = await self._stored_vectors(workspace_id, ids)
        return {i: float(np.dot(v, query)) for i, v in vectors.items() if len(v) == len(query)}

    async def _search(self, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter) -> list[Memory]:
        raise NotImplementedError

    async def _search_many(
        self, workspace_id: str, query: np.ndarray, searches: list[tuple[int, MemoryFilter]]
    ) -> list[list[Memory]]:
        """One :meth:`_search` result per (``top_k`` > 0, filters); override to send them in one request."""
        return [await self._search(workspace_id, query, top_k, filters) for top_k, filters in searches]

    async def _search_each(
        self, workspace_id: str, queries: np.ndarray, top_k: int, filters: MemoryFilter
    ) -> list[list[Memory]]:
        """One :meth:`_search` result per row of ``queries``, the searches sent together; override to make it one
        read."""
        return list(await asyncio.gather(*(self._search(workspace_id, query, top_k, filters) for query in queries)))

    async def _lexical_search(
        self, workspace_id: str, terms: list[str], top_k: int, filters: MemoryFilter
    ) -> list[Memory]:
        """The ``top_k`` memories of ``workspace_id`` meeting ``filters``, by BM25 of ``terms`` (``lexical``)."""
        raise NotImplementedError

    def _iterate(
        self, workspace_id: str, filters: MemoryFilter, batch_size: int, with_vectors: bool
    ) -> AsyncIterator[list[Memory]]:
        raise NotImplementedError

    async def _count(self, workspace_id: str, filters: MemoryFilter) -> int:
        raise NotImplementedError

    async def _targets(self, workspace_id: str) -> set[str]:
        """The distinct targets of the workspace. This default reads every memory; stores with an index override it."""
        found: set[str] = set()
        async for batch in self._iterate(workspace_id, NO_FILTER, 1000, False):
            found.update(m.target for m in batch if m.workspace_id == workspace_id)
        return found

    async def _adjacent(self, workspace_id: str, read: AdjacentRead) -> tuple[list[Memory], list[Memory]]:
        """Up to ``read.before`` memories just before its place, nearest first, and ``read.after`` just after."""
        raise NotImplementedError

    async def _adjacent_many(
        self, workspace_id: str, reads: list[AdjacentRead]
    ) -> list[tuple[list[Memory], list[Memory]]]:
        """One :meth:`_adjacent` result per read, the reads concurrent; override to make them in one step."""
        return list(await asyncio.gather(*(self._adjacent(workspace_id, read) for read in reads)))

    async def _turns_around(self, workspace_id: str, reads: list[AdjacentRead]) -> list[tuple[Turns, Turns]]:
        """Each read's turns (``before``/``after`` counted in turns, ``own`` read past). This default pages through
        :meth:`_adjacent_many` (:func:`~flowmem.vector_store.turns.paged_turns`); stores whose index knows each
        memory's sources override it to stop at a turn's end."""
        read = functools.partial(self._adjacent_many, workspace_id)
        return await paged_turns(read, workspace_id, reads, MAX_ADJACENT)


def _around(
    workspace_id: str, reads: list[AdjacentRead], found: list[tuple[list[Memory], list[Memory]]]
) -> list[tuple[list[Memory], list[Memory]]]:
    """Each read's sides as :meth:`VectorStore.adjacent` returns them: in scope, without the place, within limits."""
    return [
        ([m for m in earlier if m.workspace_id == workspace_id and m.memory_id != read.memory_id][: read.before],
         [m for m in later if m.workspace_id == workspace_id and m.memory_id != read.memory_id][: read.after])
        for read, (earlier, later) in zip(reads, found, strict=True)
    ]  # fmt: skip


def _in_scope(workspace_id: str, memory_id: str, turns: Turns) -> Turns:
    """``turns`` without memories of another workspace or the place's own id (a turn left empty goes too)."""
    kept = [[m for m in turn if m.workspace_id == workspace_id and m.memory_id != memory_id] for turn in turns]
    return [turn for turn in kept if turn]


def keyed(memories: Sequence[Memory]) -> list[Memory]:
    """The memories as stored: each given its expanded key (:func:`flowmem.scoring.keys.expanded_key`).

    Here, in the one call every write passes through (imports, the write flows, edits, evaluations), so
    no path stores a memory without its key, and a key is rebuilt from the words each time they are
    written, so it never describes words a memory no longer has. Set on the given memories themselves,
    so a caller that returns what it wrote (an edit, the write flow's actions) returns what is stored.
    """
    for memory in memories:
        memory.expanded_key = expanded_key(memory)
    return list(memories)
