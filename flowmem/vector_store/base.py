"""The vector store interface.

Every call names the workspace (the tenant scope) it works in, and nothing a call does can
reach another workspace: the checks live here, in the base class, so no backend can forget
them. Backends implement the underscored methods.

Scores: ``search`` returns memories with ``scores["similarity"]`` = cosine similarity of the
(unit-length) query and memory vectors, in [-1, 1], on every backend.

Ids: every id a write stores as a key — memory ids (of memories and of history events), and the
message ledger's user and message ids — follows one rule, :data:`ID_RULE`, checked here before
any backend sees it, so every store accepts and refuses the same ids. Reads and deletes take any
string (an id that breaks the rule is simply not there).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any, ClassVar, TypedDict

import numpy as np

from flowmem.backend import Backend, BackendKind
from flowmem.errors import FlowmemError, InputError, Problem
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.vector_store.filters import NO_FILTER, MemoryFilter

SIMILARITY = "similarity"
# The keys of stats() that say nothing about any tenant: an allow-list, so a new store-wide figure
# is not shown to a caller scoped to one workspace until someone decides it may be.
SHARED_STATS = frozenset(
    {"backend", "path", "url", "server_version", "index", "index_exists", "dims", "similarity", "index_options",
     "history_index", "messages_index"}
)  # fmt: skip
# One id rule for every store. 256 characters fit every backend with room to spare: Elasticsearch
# indexes ids as keywords, whose terms are capped at 32 766 UTF-8 bytes (it refused ~32 KB ids the
# local store took); 256 characters are at most 1 KiB. Control characters (NUL, tab, newline, …)
# and lone surrogates are refused: they cannot be shown on one line, a lone surrogate cannot be
# encoded as UTF-8 at all, and stores would differ on them.
MAX_ID_LENGTH = 256
ID_RULE = f"1 to {MAX_ID_LENGTH} characters, none of them a control character (e.g. a uuid hex, or 'trip-2024')"
_FORBIDDEN_IN_IDS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# What a write marks memorized: (user id, message ids). A message is identified by (workspace, user, message id).
Ledger = tuple[str, list[str]]


class ForgetCounts(TypedDict):
    """What :meth:`VectorStore.forget` erased (or, on a dry run, would erase)."""

    memories: int
    messages: int  # message-ledger entries
    history: int  # history events


class ScopeError(FlowmemError):
    """A call tried to leave its workspace (for example, writing a memory of another workspace)."""

    exit_code = 2


class DimensionMismatchError(FlowmemError):
    """Vectors of a different width than the store holds."""

    exit_code = 2


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (float32); zero rows stay zero."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: np.ndarray = matrix / norms
    return normalised


class VectorStore(Backend):
    """Where memories live. Subclasses implement ``_upsert``, ``_get``, ``_delete`` (or all of ``_write``),
    ``_search``, ``_iterate``, ``_count``, ``_forget`` and ``stats``."""

    kind: ClassVar[BackendKind] = "vector_store"
    _bulk_depth: int = 0

    @asynccontextmanager
    async def bulk_load(self) -> AsyncIterator[None]:
        """A block of many writes: they must be searchable when it ends, not after each upsert.

        Stores that make writes searchable by refreshing (Elasticsearch) refresh once at the end
        instead of per upsert — fewer waits and fewer, larger segments. Writes by others through the
        same store object during the block are not searchable before it ends either.
        """
        self._bulk_depth += 1
        try:
            yield
        finally:
            self._bulk_depth -= 1
            if self._bulk_depth == 0:
                await self._end_bulk_load()

    async def _end_bulk_load(self) -> None:
        """Make the block's writes searchable (stores whose writes always are need nothing)."""

    # -- the public, scope-checked API ---------------------------------------------------------
    async def upsert(self, workspace_id: str, memories: Sequence[Memory]) -> None:
        """Insert or replace memories by id (idempotent). Each must carry a vector and belong to ``workspace_id``.

        Raises:
            ScopeError: A memory belongs to another workspace.
            InputError: A memory has no vector, or two share an id.
            DimensionMismatchError: Vectors are not as wide as the store's.
        """
        _check_scope(workspace_id)
        if not memories:
            return
        await self._upsert(workspace_id, list(memories), self._vectors(workspace_id, memories))

    async def write(
        self,
        workspace_id: str,
        memories: Sequence[Memory] = (),
        *,
        history: Sequence[HistoryEvent] = (),
        user_id: str | None = None,
        memorized: Sequence[str] = (),
        deleted: Sequence[str] = (),
    ) -> int:
        """One step of the write path: upsert ``memories``, record ``history``, delete ``deleted``,
        mark messages ``memorized``.

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

        Returns:
            How many of ``deleted`` existed (and are now gone).

        Raises:
            ScopeError: A memory or event of another workspace, or ``memorized`` without a user id.
            InputError: A memory id both in ``memories`` and in ``deleted``.
        """
        _check_scope(workspace_id)
        for event in history:
            if event.workspace_id != workspace_id:
                raise ScopeError(f"history event of workspace '{event.workspace_id}' written to '{workspace_id}'")
        check_ids("history event of memory", (event.memory_id for event in history))
        if memorized:
            _check_user(user_id, "marking messages memorized")
            check_ids("message", memorized)
        doomed = list(dict.fromkeys(deleted))
        both = set(doomed).intersection(m.memory_id for m in memories)
        if both:
            why = "is both written and deleted in one write; write it or delete it"
            raise InputError([Problem(f"memory {_shown(i)}", why) for i in sorted(both)])
        if not (memories or history or memorized or doomed):
            return 0
        vectors = self._vectors(workspace_id, memories) if memories else None
        ledger = (user_id, list(dict.fromkeys(memorized))) if memorized and user_id else None
        return await self._write(workspace_id, list(memories), vectors, list(history), ledger, doomed)

    async def record_history(self, workspace_id: str, events: Sequence[HistoryEvent]) -> None:
        """Record changes made outside :meth:`write` (e.g. a delete from the CLI)."""
        await self.write(workspace_id, history=events)

    async def forget(self, workspace_id: str, user_id: str | None = None, *, dry_run: bool = False) -> ForgetCounts:
        """Erase everything this store holds of ``user_id`` in ``workspace_id`` — or, without a user, of the workspace.

        A user's share is their memories (``target == user_id``), their message-ledger entries,
        and every history event that carries a record of theirs (``old`` or ``new`` with their
        ``target``) — so also the history of memories deleted before, which still holds their
        text. Afterwards no call of this store (get, search, iterate, count, history, memorized)
        returns any of it; other users of the workspace, and other workspaces, keep everything.
        Nothing records the erasure itself. A second call finds nothing (all counts 0).

        Args:
            workspace_id: The workspace to erase in.
            user_id: Whose share to erase; ``None``: the whole workspace (memories, ledger, history).
            dry_run: Only count what would be erased; change nothing.

        Returns:
            How many memories, ledger entries (``messages``) and history events were (or would be) erased.

        Raises:
            ScopeError: No workspace, or an empty user id.
        """
        _check_scope(workspace_id)
        if user_id is not None:
            _check_user(user_id, "forgetting a user", id_rule=False)  # a target may be any text: no id rule
        return await self._forget(workspace_id, user_id, dry_run)

    async def history(self, workspace_id: str, memory_id: str | None = None, limit: int = 1000) -> list[HistoryEvent]:
        """What happened to ``memory_id`` (or to any memory of the workspace), oldest first."""
        _check_scope(workspace_id)
        return [e for e in await self._history(workspace_id, memory_id, limit) if e.workspace_id == workspace_id]

    async def memorized(self, workspace_id: str, user_id: str, message_ids: Sequence[str]) -> set[str]:
        """Which of ``user_id``'s messages the write path has already turned into memories.

        The ledger is per (workspace, user, message id): another user's ``m1`` is not this user's ``m1``.

        Raises:
            ScopeError: No workspace or no user id.
        """
        _check_scope(workspace_id)
        _check_user(user_id, "looking up memorized messages")
        if not message_ids:
            return set()
        return await self._memorized(workspace_id, user_id, list(dict.fromkeys(message_ids)))

    def _vectors(self, workspace_id: str, memories: Sequence[Memory]) -> np.ndarray:
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
        widths = {len(m.vector) for m in memories}
        if len(widths) > 1:
            raise DimensionMismatchError(f"one upsert mixes vectors of {sorted(widths)} dimensions")
        return normalise(np.stack([m.vector for m in memories]))

    async def get(self, workspace_id: str, ids: Sequence[str], *, with_vectors: bool = False) -> list[Memory]:
        """The memories with these ids in ``workspace_id``, in the order asked; unknown ids are skipped."""
        _check_scope(workspace_id)
        if not ids:
            return []
        found = await self._get(workspace_id, list(dict.fromkeys(ids)), with_vectors)
        return [m for m in found if m.workspace_id == workspace_id]

    async def delete(self, workspace_id: str, ids: Sequence[str]) -> int:
        """Delete these ids from ``workspace_id``; returns how many existed there."""
        return await self.write(workspace_id, deleted=ids)

    async def search(
        self, workspace_id: str, vector: Any, top_k: int, filters: MemoryFilter | None = None
    ) -> list[Memory]:
        """The ``top_k`` memories most similar to ``vector``, best first, with ``scores["similarity"]``."""
        _check_scope(workspace_id)
        if top_k <= 0:
            return []
        query = normalise(np.asarray(vector, dtype=np.float32))[0]
        found = await self._search(workspace_id, query, top_k, filters or NO_FILTER)
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
        _check_scope(workspace_id)
        if batch_size <= 0:
            raise InputError(Problem("iterate", f"batch_size must be positive, got {batch_size}"))
        async for batch in self._iterate(workspace_id, filters or NO_FILTER, batch_size, with_vectors):
            mine = [m for m in batch if m.workspace_id == workspace_id]
            if mine:
                yield mine

    async def count(self, workspace_id: str, filters: MemoryFilter | None = None) -> int:
        """How many memories of ``workspace_id`` match."""
        _check_scope(workspace_id)
        return await self._count(workspace_id, filters or NO_FILTER)

    async def stats(self) -> dict[str, Any]:
        """What the store holds: backend facts, dims, and memories per workspace."""
        raise NotImplementedError

    async def workspace_stats(self, workspace_id: str) -> dict[str, Any]:
        """What the store holds for ``workspace_id``, and nothing about any other workspace.

        The backend facts of :meth:`stats` that describe no tenant (:data:`SHARED_STATS`: backend,
        where it lives, vector settings) plus ``workspace`` and its ``memories`` count. Store-wide
        figures (other workspaces' names and counts, totals, sizes, revisions) are left out.
        """
        _check_scope(workspace_id)
        shared = {key: value for key, value in (await self.stats()).items() if key in SHARED_STATS}
        return {**shared, "workspace": workspace_id, "memories": await self.count(workspace_id)}

    async def check(self) -> list[tuple[str, str | None]]:
        """The store's own health checks, read-only: (what was checked, ``None`` when sound, else the problem).

        ``flowmem store check`` prints them. Stores with nothing to check but being reachable return ``[]``.
        """
        return []

    # -- what backends implement -------------------------------------------------------------
    async def _write(
        self,
        workspace_id: str,
        memories: list[Memory],
        vectors: np.ndarray | None,
        history: list[HistoryEvent],
        ledger: Ledger | None,
        deleted: list[str],
    ) -> int:
        """In order, each step idempotent; stores that can do it atomically override this.

        ``ledger`` is (user id, message ids) to mark memorized, already checked, or ``None``;
        ``deleted`` the memory ids to delete (unique, none of them in ``memories``). Returns how
        many of ``deleted`` existed.
        """
        if memories and vectors is not None:
            await self._upsert(workspace_id, memories, vectors)
        if history:
            await self._record_history(workspace_id, history)
        existed = await self._delete(workspace_id, deleted) if deleted else 0
        if ledger is not None:
            await self._mark_memorized(workspace_id, *ledger)
        return existed

    async def _forget(self, workspace_id: str, user_id: str | None, dry_run: bool) -> ForgetCounts:
        """Erase (or with ``dry_run`` count) the share of :meth:`forget`; ``user_id`` is checked or ``None``."""
        raise NotImplementedError

    async def _record_history(self, workspace_id: str, events: list[HistoryEvent]) -> None:
        raise NotImplementedError

    async def _history(self, workspace_id: str, memory_id: str | None, limit: int) -> list[HistoryEvent]:
        raise NotImplementedError

    async def _mark_memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> None:
        raise NotImplementedError

    async def _memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> set[str]:
        raise NotImplementedError

    async def _upsert(self, workspace_id: str, memories: list[Memory], vectors: np.ndarray) -> None:
        raise NotImplementedError

    async def _get(self, workspace_id: str, ids: list[str], with_vectors: bool) -> list[Memory]:
        raise NotImplementedError

    async def _delete(self, workspace_id: str, ids: list[str]) -> int:
        raise NotImplementedError

    async def _search(self, workspace_id: str, query: np.ndarray, top_k: int, filters: MemoryFilter) -> list[Memory]:
        raise NotImplementedError

    def _iterate(
        self, workspace_id: str, filters: MemoryFilter, batch_size: int, with_vectors: bool
    ) -> AsyncIterator[list[Memory]]:
        raise NotImplementedError

    async def _count(self, workspace_id: str, filters: MemoryFilter) -> int:
        raise NotImplementedError


def _check_scope(workspace_id: str) -> None:
    if not isinstance(workspace_id, str) or not workspace_id:
        raise ScopeError(f"every store call needs a workspace id (a non-empty string), got {workspace_id!r}")


def _check_user(user_id: str | None, doing: str, *, id_rule: bool = True) -> None:
    # The message ledger is per user: without one, one user's "m1" would shadow another's.
    if not isinstance(user_id, str) or not user_id.strip():
        raise ScopeError(f"{doing} needs a user id (a non-empty string), got {user_id!r}")
    if id_rule:
        check_ids("user", [user_id])


def id_problem(value: str) -> str | None:
    """What is wrong with ``value`` as an id (see :data:`ID_RULE`), or ``None`` when it is a valid id."""
    if not value:
        return "is empty"
    if len(value) > MAX_ID_LENGTH:
        return f"is {len(value)} characters long"
    bad = _FORBIDDEN_IN_IDS.search(value)
    if bad is not None:
        char = bad.group()
        what = "an unpaired surrogate" if "\ud800" <= char <= "\udfff" else "a control character"
        return f"contains {what} (U+{ord(char):04X}) at position {bad.start()}"
    return None


def check_ids(kind: str, ids: Iterable[str]) -> None:
    """Refuse ids that break :data:`ID_RULE`, naming each (shortened) and the rule.

    Raises:
        InputError: Some ids are invalid (every one is listed, up to 20).
    """
    problems = [Problem(f"{kind} id {_shown(i)}", f"{why}; an id is {ID_RULE}") for i in ids if (why := id_problem(i))]
    if problems:
        if len(problems) > 20:
            problems = [*problems[:20], Problem("", f"… and {len(problems) - 20} more invalid ids")]
        raise InputError(problems)


def _shown(value: str) -> str:
    # Ids too long to read, or holding characters a terminal would act on, are shown escaped and cut short.
    text = repr(value[:40])
    return text + (f"… ({len(value)} characters)" if len(value) > 40 else "")
