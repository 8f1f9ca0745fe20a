"""The ``local`` store: the embedded default. Persistent, crash-safe, multi-process, no server.

On-disk design, and why: one SQLite database in WAL mode (``<directory>/memories.sqlite3``).
SQLite gives exactly the guarantees this store promises without code of ours to get wrong:
a write transaction is atomic and, once ``COMMIT`` returns, survives the process being killed
(WAL + ``synchronous=FULL`` also survives power loss); a torn write is rolled back on the next
open, so the file is never corrupt; several processes share the file safely through SQLite's own
file locks (writers queue on ``BEGIN IMMEDIATE`` with a busy timeout, readers never block).
It ships with Python, so the default needs nothing installed.

Search does not run in SQLite: each process keeps an exact numpy index per workspace (unit
float32 vectors and filter columns, :mod:`flowmem.vector_store.index`), loaded on first use (for at
most ``index_cache_workspaces`` workspaces, the least recently searched dropped first) and
kept current cheaply — every write bumps a revision and stamps its rows, so catching up with
other processes' writes reads only the newer rows and tombstones. Lexical search likewise: a BM25
index per workspace (:class:`~flowmem.vector_store.lexical_text.BM25Index`) caught up in the same
step from the FTS5 table of :mod:`~flowmem.vector_store.local.lexical`. SQLite and numpy work runs on
one worker thread per store, not on the event loop, with one exception: the reads a retrieval makes
(search, word search, stored vectors, reads around places) of a workspace whose index is loaded and
current and holds at most ``inline_read_memories`` memories run on the caller's thread, when no other
work of the store is under way — such a read costs less than the hop to the worker thread and back
(~0.2 ms of CPU, four a query). One lock keeps the two threads from ever using the file or the indexes at once.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
from pydantic import Field

from flowmem.core.backend import BackendParams, register_backend
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.schema.session import ChatSession
from flowmem.vector_store.base import SIMILARITY, ForgetCounts, Turns, VectorStore, WriteBatch
from flowmem.vector_store.batch import AdjacentRead
from flowmem.vector_store.erasure import Fence
from flowmem.vector_store.filters import MemoryFilter, created_epoch
from flowmem.vector_store.index import SUBJECTS, Row, WorkspaceIndex
from flowmem.vector_store.lexical_text import LEXICAL, BM25Index, lexical_document
from flowmem.vector_store.local import check as local_check
from flowmem.vector_store.local import forget as local_forget
from flowmem.vector_store.local import sessions as local_sessions
from flowmem.vector_store.local.db import FILE_NAME, LocalDB
from flowmem.vector_store.local.records import ParsedRecords
from flowmem.vector_store.paths import data_home
from flowmem.vector_store.targets import live_targets

T = TypeVar("T")


class LocalStoreParams(BackendParams):
    directory: str | None = Field(None, description="where the store lives (default: $FLOWMEM_HOME or the data dir)")
    synchronous: Literal["full", "normal"] = Field(
        "full", description="full: a write survives power loss; normal: survives a process crash, faster"
    )
    index_cache_workspaces: int = Field(
        64,
        ge=1,
        description="how many workspaces' search indexes a process keeps in memory (the least recently searched "
        "go first, and are loaded again from the file when next searched); each holds its workspace's vectors",
    )
    inline_read_memories: int = Field(
        20_000,
        ge=0,
        description="a retrieval's reads of a workspace of at most this many memories run on the caller's thread "
        "(cheaper than a hop to the store's thread); larger ones on the store's thread, so the event loop goes on "
        "while numpy scans (0: always the store's thread)",
    )


@dataclass
class _Cached:
    """A workspace's search indexes as this process holds them: vectors and BM25, both at ``revision``."""

    index: WorkspaceIndex
    lexicon: BM25Index
    revision: int


@register_backend("vector_store", "local")
class LocalStore(VectorStore):
    """Memories in SQLite, searched with an exact numpy index."""

    Params = LocalStoreParams
    params: LocalStoreParams
    filter_subjects = SUBJECTS

    def __init__(self, params: BackendParams | None = None, *, name: str = "default"):
        super().__init__(params, name=name)
        self.directory = Path(self.params.directory).expanduser() if self.params.directory else data_home()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"flowmem-local-{name}")
        self._db: LocalDB | None = None
        # workspace → its indexes, least recently searched first; at most params.index_cache_workspaces, so
        # distinct workspaces searched over a process's life do not each keep memory.
        self._indexes: OrderedDict[str, _Cached] = OrderedDict()
        self._width: int | None = None  # the file's vector width, once known (a file's width never changes)
        self._parsed = ParsedRecords()  # what searches returned, until a write changes it (under the lock)
        self._lock = threading.Lock()  # held by whichever thread uses the file or the indexes (module docstring)
        self._inline_current: str | None = None  # the workspace whose index a read on the caller's thread found current
        # How messages name the store: built once (every read's filter check and width check names it).
        self._where = f"vector_store '{self.name}' ({self.directory / FILE_NAME})"

    # -- plumbing ------------------------------------------------------------------------------
    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._guarded, fn, *args)

    def _guarded(self, fn: Callable[..., T], *args: Any) -> T:
        with self._lock:
            return self._translated(fn, *args)

    def _translated(self, fn: Callable[..., T], *args: Any) -> T:
        # Every SQLite call of this store runs through here: any SQLite error becomes one clear error
        # naming the file (StoreDamagedError for damage), never a raw sqlite3 traceback.
        try:
            return fn(*args)
        except sqlite3.Error as exc:
            raise local_check.sqlite_failure(self.directory / FILE_NAME, exc) from exc

    async def _read(self, fn: Callable[..., T], workspace_id: str, *args: Any) -> T:
        """``fn(workspace_id, *args)``, a read of the workspace's indexes: on the caller's thread when it is cheap
        (the store idle, the workspace's index loaded, current and small: see the module docstring), else on the
        store's thread."""
        if self._lock.acquire(blocking=False):
            try:
                if self._current_and_small(workspace_id):
                    self._inline_current = workspace_id  # _cached need not ask the file's revision again
                    return self._translated(fn, workspace_id, *args)
            finally:
                self._inline_current = None
                self._lock.release()
        return await self._call(fn, workspace_id, *args)

    def _current_and_small(self, workspace_id: str) -> bool:
        cached = self._indexes.get(workspace_id)
        if cached is None or self._db is None or len(cached.index) > self.params.inline_read_memories:
            return False
        try:
            return self._db.revision() == cached.revision  # another process's write is caught up on the thread
        except sqlite3.Error:
            return False  # the store's thread reports it, naming the file

    def _open(self) -> LocalDB:
        if self._db is None:
            self._db = LocalDB(self.directory, synchronous=self.params.synchronous.upper(), store_name=self.name)
        return self._db

    def _cached(self, workspace_id: str) -> _Cached | None:
        """The workspace's indexes, brought up to date with every process's writes (worker thread)."""
        db = self._open()
        cached = self._indexes.get(workspace_id)
        if cached is not None:
            self._indexes.move_to_end(workspace_id)
            if self._inline_current == workspace_id or db.revision() == cached.revision:
                return cached
        changes = db.changes(workspace_id, -1 if cached is None else cached.revision)
        dims = db.dims
        if dims is None:
            return None
        if cached is None or changes.full:
            cached = _Cached(WorkspaceIndex(dims), BM25Index(), -1)
            self._parsed.forget_workspace(workspace_id)
        self._parsed.forget(workspace_id, changes.deleted)
        self._parsed.forget(workspace_id, [row.memory_id for row in changes.rows])
        for memory_id in changes.deleted:
            cached.index.remove(memory_id)
            cached.lexicon.remove(memory_id)
        if changes.rows:
            cached.index.put(changes.rows, changes.vectors)
            cached.lexicon.put_many((row.memory_id, changes.texts.get(row.memory_id, "")) for row in changes.rows)
        cached.revision = changes.revision
        self._indexes[workspace_id] = cached
        self._indexes.move_to_end(workspace_id)
        while len(self._indexes) > self.params.index_cache_workspaces:
            self._indexes.popitem(last=False)
        return cached

    # -- operations (each runs whole on the worker thread) --------------------------------------
    def _write_sync(self, workspace_id: str, batch: WriteBatch) -> int:
        rows = [Row.of(m) for m in batch.memories]
        revision, existing = self._open().write(workspace_id, batch, rows)
        if revision is not None:
            self._applied(workspace_id, revision, batch.memories, rows, batch.vectors, existing)
        return len(existing)

    def _applied(
        self,
        workspace_id: str,
        revision: int,
        memories: list[Memory],
        rows: list[Row],
        vectors: np.ndarray | None,
        removed: list[str],
    ) -> None:
        """Bring the cached indexes to ``revision`` with this process's own change, when it was the only one."""
        self._parsed.forget(workspace_id, removed)
        self._parsed.forget(workspace_id, [m.memory_id for m in memories])
        cached = self._indexes.get(workspace_id)
        if cached is not None and cached.revision == revision - 1:
            # Nothing else was written in between: apply ours directly instead of reading it back.
            for memory_id in removed:
                cached.index.remove(memory_id)
                cached.lexicon.remove(memory_id)
            if rows and vectors is not None:
                cached.index.put(rows, vectors)
                cached.lexicon.put_many((memory.memory_id, lexical_document(memory)) for memory in memories)
            cached.revision = revision

    def _forget_sync(self, workspace_id: str, user_id: str | None, dry_run: bool) -> ForgetCounts:
        counts, removed, revision = local_forget.forget(self._open(), workspace_id, user_id, dry_run)
        if revision is not None:
            self._applied(workspace_id, revision, [], [], None, removed)
        return counts

    def _search_many_sync(
        self, workspace_id: str, query: np.ndarray, searches: list[tuple[int, MemoryFilter]]
    ) -> list[list[Memory]]:
        cached = self._cached(workspace_id)
        if cached is None:
            return [[] for _ in searches]
        found = cached.index.search_many(query, searches)
        return [self._scored(workspace_id, cached, hits, SIMILARITY) for hits in found]

    def _search_each_sync(
        self, workspace_id: str, queries: np.ndarray, top_k: int, filters: MemoryFilter
    ) -> list[list[Memory]]:
        cached = self._cached(workspace_id)
        if cached is None:
            return [[] for _ in queries]
        found = cached.index.search_each(queries, top_k, filters)
        return [self._scored(workspace_id, cached, hits, SIMILARITY) for hits in found]

    def _lexical_sync(self, workspace_id: str, terms: list[str], top_k: int, filters: MemoryFilter) -> list[Memory]:
        cached = self._cached(workspace_id)
        if cached is None:
            return []
        return self._scored(
            workspace_id, cached, cached.lexicon.top(terms, top_k, cached.index.keeper(filters)), LEXICAL
        )

    def _scored(self, workspace_id: str, cached: _Cached, hits: list[tuple[str, float]], name: str) -> list[Memory]:
        """The memories of a search's ``hits`` (id, score), in order, each with its score alone as ``scores[name]``."""
        return self._records(workspace_id, cached, [memory_id for memory_id, _ in hits], False, (name, dict(hits)))

    def _records(
        self,
        workspace_id: str,
        cached: _Cached,
        ids: list[str],
        with_vectors: bool,
        scored: tuple[str, dict[str, float]] | None = None,
    ) -> list[Memory]:
        """The memories of ``ids`` (chosen by ``cached``'s index), in order: those kept since an earlier read copied,
        the others read from the file and kept; vectors from the index, as the file holds them. ``scored``: (a
        score's name, its value by id): each memory's scores are that one score alone."""
        if scored is None:
            found = {i: m for i in ids if (m := self._parsed.copy_of(workspace_id, i)) is not None}
        else:  # the scores given to the copy as it is made (an assignment after it costs a pydantic __setattr__)
            name, by_id = scored
            copy_of = self._parsed.copy_of
            found = {i: m for i in ids if (m := copy_of(workspace_id, i, {name: by_id[i]})) is not None}
        missing = [i for i in ids if i not in found]
        for memory in self._open().records(workspace_id, missing, with_vectors) if missing else []:
            self._parsed.keep(workspace_id, memory)
            if scored is not None:
                memory.scores = {scored[0]: scored[1][memory.memory_id]}
            found[memory.memory_id] = memory
        rows = cached.index.row_of
        if with_vectors:
            for memory_id, memory in found.items():
                if memory.vector is None and memory_id in rows:
                    memory.vector = cached.index.vectors[rows[memory_id]].copy()
        return [found[i] for i in ids if i in found]

    def _matching_ids(self, workspace_id: str, filters: MemoryFilter) -> list[str]:
        cached = self._cached(workspace_id)
        return [] if cached is None else cached.index.matching_ids(filters)

    def _adjacent_sync(self, workspace_id: str, reads: list[AdjacentRead]) -> list[tuple[list[Memory], list[Memory]]]:
        cached = self._cached(workspace_id) if reads else None
        if cached is None:
            return [([], []) for _ in reads]
        sides = [
            cached.index.adjacent(created_epoch(read.at), read.memory_id, read.filters, read.before, read.after)
            for read in reads
        ]
        hand = self._hand_out(workspace_id, cached, [i for earlier, later in sides for i in earlier + later], reads)
        return [(hand(earlier), hand(later)) for earlier, later in sides]

    def _turns_sync(self, workspace_id: str, reads: list[AdjacentRead]) -> list[tuple[Turns, Turns]]:
        cached = self._cached(workspace_id) if reads else None
        if cached is None:
            return [([], []) for _ in reads]
        index = cached.index
        sides = [index.adjacent_turns(created_epoch(r.at), r.memory_id, r.own, r.filters, r.before, r.after)
                 for r in reads]  # fmt: skip
        hand = self._hand_out(workspace_id, cached, [i for s in sides for turn in s[0] + s[1] for i in turn], reads)
        return [([hand(turn) for turn in earlier], [hand(turn) for turn in later]) for earlier, later in sides]

    def _hand_out(
        self, workspace_id: str, cached: _Cached, ids: list[str], reads: list[AdjacentRead]
    ) -> Callable[[list[str]], list[Memory]]:
        """The memories of ``ids`` as reads around places hand them out: only the records of the ids the index chose
        are read, one query for every read (the reads of one call share with_vectors); a memory around two places
        is handed out once per place (a copy after the first)."""
        found = {m.memory_id: m for m in self._records(workspace_id, cached, list(dict.fromkeys(ids)),
                                                        reads[0].with_vectors)}  # fmt: skip
        handed: set[str] = set()

        def own(memory_id: str) -> Memory:
            memory = found[memory_id]
            if memory_id in handed:
                return memory.model_copy(deep=True)
            handed.add(memory_id)
            return memory

        return lambda wanted: [own(i) for i in wanted if i in found]

    def _stored_vectors_sync(self, workspace_id: str, ids: list[str]) -> dict[str, np.ndarray]:
        cached = self._cached(workspace_id)
        if cached is None:
            return {}
        rows = cached.index.row_of
        return {i: cached.index.vectors[rows[i]].copy() for i in ids if i in rows}

    def _similarities_sync(self, workspace_id: str, query: np.ndarray, ids: list[str]) -> dict[str, float]:
        cached = self._cached(workspace_id)
        if cached is None or len(query) != cached.index.dims:
            return {}
        rows, vectors = cached.index.row_of, cached.index.vectors
        # np.dot of each stored row, as the base's default over copies of them computes it (the same bits)
        return {i: float(np.dot(vectors[rows[i]], query)) for i in ids if i in rows}

    def _count_sync(self, workspace_id: str, filters: MemoryFilter) -> int:
        cached = self._cached(workspace_id)
        return 0 if cached is None else cached.index.count(filters)

    def _stats_sync(self) -> dict[str, Any]:
        db = self._open()
        size = sum(p.stat().st_size for p in self.directory.glob(db.path.name + "*") if p.is_file())
        return {
            "backend": "local",
            "path": str(db.path),
            "bytes_on_disk": size,
            "dims": db.dims,
            "revision": db.revision(),
            "workspaces": db.workspaces(),
        }

    # -- the VectorStore interface -------------------------------------------------------------
    def _place(self) -> str:
        return self._where

    async def _dims(self) -> int | None:
        if self._width is None:
            self._width = await self._call(lambda: self._open().dims)
        return self._width

    async def _upsert(self, workspace_id: str, memories: list[Memory], vectors: np.ndarray) -> None:
        await self._write(workspace_id, WriteBatch(memories, vectors, [], None, []))

    async def _write(self, workspace_id: str, batch: WriteBatch) -> int:
        # One SQLite transaction: a crash leaves all of it or none of it, and the fence and must-exist checks
        # hold for the whole of it. (Upserts, history records, ledger marks and deletes all come here, so the
        # step-wise _record_history etc. are not needed.)
        return await self._call(self._write_sync, workspace_id, batch)

    async def _generations(self, workspace_id: str, keys: list[str]) -> dict[str, int]:
        return await self._call(lambda: self._open().generations(workspace_id, keys))

    async def _forget(self, workspace_id: str, user_id: str | None, dry_run: bool) -> ForgetCounts:
        return await self._call(self._forget_sync, workspace_id, user_id, dry_run)

    async def _history(self, workspace_id: str, memory_id: str | None, limit: int) -> list[HistoryEvent]:
        return await self._call(lambda: self._open().history(workspace_id, memory_id, limit))

    async def _memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> set[str]:
        return await self._call(lambda: self._open().memorized(workspace_id, user_id, message_ids))

    async def _get_session(self, workspace_id: str, user_id: str, session_id: str) -> ChatSession | None:
        return await self._call(lambda: local_sessions.get(self._open(), workspace_id, user_id, session_id))

    async def _put_session(self, session: ChatSession, fence: Fence | None) -> bool:
        return await self._call(lambda: local_sessions.put(self._open(), session, fence))

    async def _delete_session(self, workspace_id: str, user_id: str, session_id: str) -> bool:
        return await self._call(lambda: local_sessions.delete(self._open(), workspace_id, user_id, session_id))

    async def _get(self, workspace_id: str, ids: list[str], with_vectors: bool) -> list[Memory]:
        return await self._call(lambda: self._open().records(workspace_id, ids, with_vectors))

    async def _stored_vectors(self, workspace_id: str, ids: list[str]) -> dict[str, np.ndarray]:
        return await self._read(self._stored_vectors_sync, workspace_id, ids)

    async def _similarities(self, workspace_id: str, query: np.ndarray, ids: list[str]) -> dict[str, float]:
        # The dot products where the vectors are: no copy of each stored vector handed out first.
        return await self._read(self._similarities_sync, workspace_id, query, ids)

    async def _search(self, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter) -> list[Memory]:
        return (await self._search_many(workspace_id, query, [(top_k, filters)]))[0]

    async def _search_many(
        self, workspace_id: str, query: np.ndarray, searches: list[tuple[int, MemoryFilter]]
    ) -> list[list[Memory]]:
        # One read for all of them, one hop at most (a query naming a time makes three searches).
        return await self._read(self._search_many_sync, workspace_id, query, searches)

    async def _search_each(
        self, workspace_id: str, queries: np.ndarray, top_k: int, filters: MemoryFilter
    ) -> list[list[Memory]]:
        return await self._read(self._search_each_sync, workspace_id, queries, top_k, filters)

    async def _lexical_search(
        self, workspace_id: str, terms: list[str], top_k: int, filters: MemoryFilter
    ) -> list[Memory]:
        return await self._read(self._lexical_sync, workspace_id, terms, top_k, filters)

    async def _iterate(
        self, workspace_id: str, filters: MemoryFilter, batch_size: int, with_vectors: bool
    ) -> AsyncIterator[list[Memory]]:
        ids = await self._call(self._matching_ids, workspace_id, filters)
        for start in range(0, len(ids), batch_size):
            chunk = ids[start : start + batch_size]
            yield await self._call(lambda c=chunk: self._open().records(workspace_id, c, with_vectors))

    async def _count(self, workspace_id: str, filters: MemoryFilter) -> int:
        return await self._call(self._count_sync, workspace_id, filters)

    async def _targets(self, workspace_id: str) -> set[str]:
        return await self._call(lambda: live_targets(getattr(self._cached(workspace_id), "index", None)))

    async def _adjacent(self, workspace_id: str, read: AdjacentRead) -> tuple[list[Memory], list[Memory]]:
        return (await self._read(self._adjacent_sync, workspace_id, [read]))[0]

    async def _adjacent_many(
        self, workspace_id: str, reads: list[AdjacentRead]
    ) -> list[tuple[list[Memory], list[Memory]]]:
        return await self._read(self._adjacent_sync, workspace_id, reads)

    async def _turns_around(self, workspace_id: str, reads: list[AdjacentRead]) -> list[tuple[Turns, Turns]]:
        return await self._read(self._turns_sync, workspace_id, reads)

    async def stats(self) -> dict[str, Any]:
        return await self._call(self._stats_sync)

    async def check(self) -> list[tuple[str, str | None]]:
        """The file's size and header, its schema, and SQLite's ``integrity_check``; never writes to the file."""
        return await self._call(local_check.report, self.directory / FILE_NAME)

    async def integrity_check(self) -> str:
        """SQLite's own check of the file: ``"ok"`` when sound."""
        return await self._call(lambda: self._open().integrity())

    async def aclose(self) -> None:
        if self._db is not None:
            await self._call(self._db.close)
            self._db = None
        self._executor.shutdown(wait=True)
