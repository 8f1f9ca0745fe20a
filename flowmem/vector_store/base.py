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

import contextlib
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from flowmem.core.backend import Backend, BackendKind, BackendParams
from flowmem.core.errors import InputError, Problem
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.scoring.keys import expanded_key
from flowmem.vector_store.batch import Ledger, WriteBatch
from flowmem.vector_store.bulk_load import BulkLoadStore
from flowmem.vector_store.erasure import ErasureGate, Fence, fence_keys
from flowmem.vector_store.filters import NO_FILTER, MemoryFilter
from flowmem.vector_store.places import END_OF_TIME, LAST_ID, MAX_ADJACENT, PlaceReads, TurnPlace, Turns
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
from flowmem.vector_store.searches import SIMILARITY, SearchReads
from flowmem.vector_store.sessions import SessionStore

# Kept importable from here (they lived here before rules.py): the errors, and normalise (the embedding base uses it).
# And the names of the searches and the reads around a place, which lived here before searches.py and places.py.
__all__ = [
    "END_OF_TIME", "LAST_ID", "MAX_ADJACENT", "SHARED_STATS", "SIMILARITY", "DimensionMismatchError", "Fence",
    "ForgetCounts", "Ledger", "ScopeError", "TurnPlace", "Turns", "UnsupportedFilterError", "VectorStore",
    "WriteBatch", "normalise",
]  # fmt: skip

# The keys of stats() that say nothing about any tenant: an allow-list, so a new store-wide figure
# is not shown to a caller scoped to one workspace until someone decides it may be.
SHARED_STATS = frozenset(
    {"backend", "path", "url", "server_version", "index", "index_exists", "dims", "similarity", "index_options",
     "history_index", "messages_index"}
)  # fmt: skip


class VectorStore(RecordStore, BulkLoadStore, SessionStore, SearchReads, PlaceReads, Backend):
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

    async def delete(self, workspace_id: str, ids: Sequence[str]) -> int:
        """Delete these ids from ``workspace_id``; returns how many existed there."""
        # A write of deletes, scope-checked by write(). Its count cannot be post-filtered: every
        # backend keys deletes by (workspace, id), which conformance's tenant isolation proves.
        return await self.write(workspace_id, deleted=ids)

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
