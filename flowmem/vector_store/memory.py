"""The ``memory`` store: ephemeral, in this process only. For tests, notebooks and caches."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import numpy as np

from flowmem.core.backend import BackendParams, register_backend
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.schema.session import ChatSession
from flowmem.vector_store.base import SIMILARITY, ForgetCounts, Turns, VectorStore, WriteBatch
from flowmem.vector_store.batch import AdjacentRead
from flowmem.vector_store.erasure import WORKSPACE, Fence, gone
from flowmem.vector_store.filters import MemoryFilter, created_epoch
from flowmem.vector_store.index import SUBJECTS, Row, WorkspaceIndex
from flowmem.vector_store.lexical_text import LEXICAL, BM25Index, lexical_document
from flowmem.vector_store.targets import live_targets

# Above this many rows a search runs in a worker thread, so the event loop stays responsive.
THREAD_THRESHOLD = 20_000


class MemoryStoreParams(BackendParams):
    """The ``memory`` store has no settings."""


@register_backend("vector_store", "memory")
class MemoryStore(VectorStore):
    """Memories in a dict, vectors in a numpy index; gone when the process ends."""

    Params = MemoryStoreParams
    filter_subjects = SUBJECTS

    def __init__(self, params: BackendParams | None = None, *, name: str = "default"):
        super().__init__(params, name=name)
        self._records: dict[str, dict[str, Memory]] = {}
        self._indexes: dict[str, WorkspaceIndex] = {}
        self._width: int | None = None  # set by the first write (the base checks every later one against it)
        self._events: dict[str, dict[str, HistoryEvent]] = {}
        self._memorized_ids: dict[tuple[str, str], set[str]] = {}  # (workspace, user) → message ids
        self._lexical: dict[str, BM25Index] = {}  # workspace → its lexical (BM25) index
        self._sessions: dict[tuple[str, str, str], ChatSession] = {}  # (workspace, user, session) → session
        self._fences: dict[tuple[str, str], int] = {}  # (workspace, user or WORKSPACE) → erasure generation

    async def _dims(self) -> int | None:
        return self._width

    async def _upsert(self, workspace_id: str, memories: list[Memory], vectors: np.ndarray) -> None:
        # No await between the base's width check and here, so no other write can set another width meanwhile.
        self._width = self._width or vectors.shape[1]
        index = self._indexes.setdefault(workspace_id, WorkspaceIndex(vectors.shape[1]))
        records = self._records.setdefault(workspace_id, {})
        stored = [
            m.model_copy(update={"vector": v, "scores": {}, "score_sources": {}, "explain": {}})
            for m, v in zip(memories, vectors, strict=True)
        ]
        index.put([Row.of(m) for m in stored], vectors)
        records.update((memory.memory_id, memory) for memory in stored)
        lexicon = self._lexical.setdefault(workspace_id, BM25Index())
        lexicon.put_many((memory.memory_id, lexical_document(memory)) for memory in stored)

    async def _get(self, workspace_id: str, ids: list[str], with_vectors: bool) -> list[Memory]:
        records = self._records.get(workspace_id, {})
        return [_out(records[i], with_vectors) for i in ids if i in records]

    async def _delete(self, workspace_id: str, ids: list[str]) -> int:
        records = self._records.get(workspace_id, {})
        index = self._indexes.get(workspace_id)
        removed = 0
        for memory_id in ids:
            if records.pop(memory_id, None) is not None:
                removed += 1
                self._lexical[workspace_id].remove(memory_id)
                if index is not None:
                    index.remove(memory_id)
        return removed

    async def _search(self, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter) -> list[Memory]:
        return (await self._search_many(workspace_id, query, [(top_k, filters)]))[0]

    async def _search_many(
        self, workspace_id: str, query: np.ndarray, searches: list[tuple[int, MemoryFilter]]
    ) -> list[list[Memory]]:
        index = self._indexes.get(workspace_id)
        if index is None:
            return [[] for _ in searches]
        if index.n > THREAD_THRESHOLD:
            found = await asyncio.to_thread(index.search_many, query, searches)
        else:
            found = index.search_many(query, searches)
        records = self._records[workspace_id]
        return [[_out(records[i], False, {SIMILARITY: score}) for i, score in hits] for hits in found]

    async def _search_each(
        self, workspace_id: str, queries: np.ndarray, top_k: int, filters: MemoryFilter
    ) -> list[list[Memory]]:
        index = self._indexes.get(workspace_id)
        if index is None:
            return [[] for _ in queries]
        if index.n > THREAD_THRESHOLD:
            found = await asyncio.to_thread(index.search_each, queries, top_k, filters)
        else:
            found = index.search_each(queries, top_k, filters)
        records = self._records[workspace_id]
        return [[_out(records[i], False, {SIMILARITY: score}) for i, score in hits] for hits in found]

    async def _lexical_search(
        self, workspace_id: str, terms: list[str], top_k: int, filters: MemoryFilter
    ) -> list[Memory]:
        index, lexicon = self._indexes.get(workspace_id), self._lexical.get(workspace_id)
        if index is None or lexicon is None:
            return []
        best = lexicon.top(terms, top_k, index.keeper(filters))
        records = self._records[workspace_id]
        return [_out(records[memory_id], False, {LEXICAL: score}) for memory_id, score in best]

    async def _iterate(
        self, workspace_id: str, filters: MemoryFilter, batch_size: int, with_vectors: bool
    ) -> AsyncIterator[list[Memory]]:
        index = self._indexes.get(workspace_id)
        if index is None:
            return
        ids = index.matching_ids(filters)
        records = self._records[workspace_id]
        for start in range(0, len(ids), batch_size):
            yield [_out(records[i], with_vectors) for i in ids[start : start + batch_size] if i in records]

    async def _count(self, workspace_id: str, filters: MemoryFilter) -> int:
        index = self._indexes.get(workspace_id)
        return 0 if index is None else index.count(filters)

    async def _targets(self, workspace_id: str) -> set[str]:
        return live_targets(self._indexes.get(workspace_id))

    async def _adjacent(self, workspace_id: str, read: AdjacentRead) -> tuple[list[Memory], list[Memory]]:
        index = self._indexes.get(workspace_id)
        if index is None:
            return [], []
        earlier, later = index.adjacent(created_epoch(read.at), read.memory_id, read.filters, read.before, read.after)
        records = self._records[workspace_id]
        return [_out(records[i], read.with_vectors) for i in earlier], [
            _out(records[i], read.with_vectors) for i in later
        ]

    async def _turns_around(self, workspace_id: str, reads: list[AdjacentRead]) -> list[tuple[Turns, Turns]]:
        index = self._indexes.get(workspace_id)
        if index is None:
            return [([], []) for _ in reads]
        records = self._records[workspace_id]
        found = []
        for read in reads:
            sides = index.adjacent_turns(
                created_epoch(read.at), read.memory_id, read.own, read.filters, read.before, read.after
            )
            earlier, later = ([[_out(records[i], read.with_vectors) for i in turn] for turn in side] for side in sides)
            found.append((earlier, later))
        return found

    async def _write(self, workspace_id: str, batch: WriteBatch) -> int:
        # No await before the checks pass and none between the steps' effects: all of it happens, or none.
        self._check_fence(batch.fence)
        missing = [i for i in batch.must_exist if i not in self._records.get(workspace_id, {})]
        if missing:
            raise gone(workspace_id, missing)
        if batch.memories and batch.vectors is not None:  # widths were checked by the base
            await self._upsert(workspace_id, batch.memories, batch.vectors)
        await self._record_history(workspace_id, batch.history)
        existed = await self._delete(workspace_id, batch.deleted)
        if batch.ledger is not None:
            await self._mark_memorized(workspace_id, *batch.ledger)
        return existed

    def _check_fence(self, fence: Fence | None) -> None:
        if fence is not None:
            fence.check({key: self._fences.get((fence.workspace_id, key), 0) for key in fence.generations})

    async def _generations(self, workspace_id: str, keys: list[str]) -> dict[str, int]:
        return {key: self._fences.get((workspace_id, key), 0) for key in keys}

    async def _forget(self, workspace_id: str, user_id: str | None, dry_run: bool) -> ForgetCounts:
        records = self._records.get(workspace_id, {})
        memories = [i for i, m in records.items() if user_id is None or m.target == user_id]
        ledgers = [key for key in self._memorized_ids if key[0] == workspace_id and user_id in (None, key[1])]
        events = self._events.get(workspace_id, {})
        history = [i for i, e in events.items() if user_id is None or user_id in e.targets]
        sessions = [key for key in self._sessions if key[0] == workspace_id and user_id in (None, key[1])]
        counts = ForgetCounts(
            memories=len(memories),
            messages=sum(len(self._memorized_ids[key]) for key in ledgers),
            history=len(history),
            sessions=len(sessions),
        )
        if not dry_run:
            key = (workspace_id, WORKSPACE if user_id is None else user_id)
            self._fences[key] = self._fences.get(key, 0) + 1
            await self._delete(workspace_id, memories)
            for key in ledgers:
                del self._memorized_ids[key]
            for event_id in history:
                del events[event_id]
            for session_key in sessions:
                del self._sessions[session_key]
        return counts

    async def _get_session(self, workspace_id: str, user_id: str, session_id: str) -> ChatSession | None:
        found = self._sessions.get((workspace_id, user_id, session_id))
        return None if found is None else found.model_copy(deep=True)

    async def _put_session(self, session: ChatSession, fence: Fence | None) -> bool:
        self._check_fence(fence)
        key = (session.workspace_id, session.user_id, session.session_id)
        stored = self._sessions.get(key)
        if (0 if stored is None else stored.version) != session.version - 1:
            return False
        self._sessions[key] = session.model_copy(deep=True)
        return True

    async def _delete_session(self, workspace_id: str, user_id: str, session_id: str) -> bool:
        return self._sessions.pop((workspace_id, user_id, session_id), None) is not None

    async def _record_history(self, workspace_id: str, events: list[HistoryEvent]) -> None:
        recorded = self._events.setdefault(workspace_id, {})
        for event in events:
            recorded.setdefault(event.event_id, event.model_copy(deep=True))

    async def _history(self, workspace_id: str, memory_id: str | None, limit: int) -> list[HistoryEvent]:
        events = [e for e in self._events.get(workspace_id, {}).values() if memory_id in (None, e.memory_id)]
        latest = sorted(events, key=lambda e: e.time)[-limit:] if limit > 0 else []
        return [e.model_copy(deep=True) for e in latest]

    async def _mark_memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> None:
        self._memorized_ids.setdefault((workspace_id, user_id), set()).update(message_ids)

    async def _memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> set[str]:
        return set(message_ids) & self._memorized_ids.get((workspace_id, user_id), set())

    async def stats(self) -> dict[str, Any]:
        return {
            "backend": "memory",
            "dims": self._width,
            "workspaces": {ws: len(index) for ws, index in sorted(self._indexes.items()) if len(index)},
        }


def _out(memory: Memory, with_vector: bool, scores: dict[str, float] | None = None) -> Memory:
    # A deep copy: callers may change what they get without changing what is stored.
    copy = memory.model_copy(deep=True)
    copy.scores = dict(scores or {})
    if not with_vector:
        copy.vector = None
    return copy
