"""Forget wins: erasure generations ("fences") and the rule that a write prepared before a forget is refused.

A write that changes what it read (an edit, the write path expiring an older fact, an import replacing
memories, a chat session's next version) reads first and writes later; a ``forget`` of the user may run in
between. Written as it was prepared, the write would bring back what the forget erased — the memory, its text
in an ``update`` event, a session window. Three rules, each applied by every store, stop that:

1. **Fences.** Every store keeps an erasure generation per (workspace, user) and one per workspace; ``forget``
   advances the user's (or, forgetting a whole workspace, the workspace's) before it erases anything. A writer
   reads the generations of the users it writes about *before it reads anything it will change*
   (:meth:`VectorStore.fence <flowmem.vector_store.base.VectorStore.fence>`) and hands that :class:`Fence` to its
   write; a write whose fence is no longer current is refused with :class:`~flowmem.core.errors.WriteConflictError`
   and nothing of it stays. ``local`` checks inside the write's SQLite transaction, so the refusal is atomic;
   ``memory`` has no await between the check and the write; Elasticsearch, with no transactions, records a
   write intent, checks before and after writing, erases what it wrote when a forget got in between, and the
   forget waits for the intents it finds before erasing (see :mod:`~flowmem.vector_store.elasticsearch.guard`).
2. **Must exist.** A write that replaces memories it read names them (``must_exist``); if one is gone when the
   write lands (deleted or forgotten meanwhile) the write is refused with :class:`~flowmem.core.errors.NotFoundError`
   and nothing of it is written (``local``: in the transaction; Elasticsearch: version-conditioned index
   requests, ``if_seq_no``/``if_primary_term`` from a realtime read).
3. **One process waits.** Within one store object, ``forget`` waits for the fenced writes under way in that
   workspace, and writes that start while a forget runs wait for it (:class:`ErasureGate`); they then meet rule 1
   before writing anything. So on one server no racing write's effects are ever visible after a forget
   answers; across processes, ``local``'s transactions and Elasticsearch's write intents give the same.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field

from flowmem.core.errors import NotFoundError, WriteConflictError

WORKSPACE = ""  # the key of the workspace-wide generation (no user id is empty: the id rule refuses it)


@dataclass(frozen=True)
class Fence:
    """The erasure generations a write was prepared under.

    Attributes:
        workspace_id: The workspace the write goes to.
        generations: user id → generation when the writer read it; :data:`WORKSPACE` (``""``) is the
            workspace-wide one, always present.
    """

    workspace_id: str
    generations: Mapping[str, int] = field(default_factory=dict)

    @property
    def users(self) -> list[str]:
        """The users the fence covers (the workspace-wide key left out)."""
        return [user for user in self.generations if user != WORKSPACE]

    def stale(self, current: Mapping[str, int]) -> list[str]:
        """The keys whose generation moved on (``current`` lacks a key: generation 0)."""
        return [key for key, seen in self.generations.items() if current.get(key, 0) != seen]

    def check(self, current: Mapping[str, int]) -> None:
        """Raise :class:`~flowmem.core.errors.WriteConflictError` (naming who was forgotten) if a key moved on."""
        stale = self.stale(current)
        if stale:
            raise refused(self, stale)


def fence_keys(users: Iterable[str]) -> list[str]:
    """The keys a fence for ``users`` reads: the workspace-wide one first, then each user once."""
    return [WORKSPACE, *dict.fromkeys(user for user in users if user != WORKSPACE)]


def refused(fence: Fence, stale: list[str]) -> WriteConflictError:
    """The error of a write whose fence moved on: who was forgotten, and that nothing of the write was kept."""
    users = [key for key in stale if key != WORKSPACE]
    who = (
        f"workspace '{fence.workspace_id}' was forgotten"
        if WORKSPACE in stale
        else f"user{'s' if len(users) > 1 else ''} {', '.join(repr(u) for u in users)} of workspace "
        f"'{fence.workspace_id}' {'were' if len(users) > 1 else 'was'} forgotten"
    )
    return WriteConflictError(f"{who} while this write was under way; nothing of it was stored")


class ErasureGate:
    """Per workspace: fenced writes share it, ``forget`` has it alone (rule 3 of the module docstring)."""

    def __init__(self) -> None:
        self._writers: dict[str, int] = {}
        self._erasing: dict[str, int] = {}
        self._changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    @contextlib.asynccontextmanager
    async def writing(self, workspace_id: str) -> AsyncIterator[None]:
        """A fenced write: waits while a forget of the workspace runs."""
        changed = self._condition()
        async with changed:
            await changed.wait_for(lambda: not self._erasing.get(workspace_id))
            _count(self._writers, workspace_id, +1)
        try:
            yield
        finally:
            await self._leave(self._writers, workspace_id)

    @contextlib.asynccontextmanager
    async def erasing(self, workspace_id: str) -> AsyncIterator[None]:
        """A forget: new fenced writes of the workspace wait from now on; waits for those under way."""
        changed = self._condition()
        async with changed:
            _count(self._erasing, workspace_id, +1)
            await changed.wait_for(lambda: not self._writers.get(workspace_id))
        try:
            yield
        finally:
            await self._leave(self._erasing, workspace_id)

    async def _leave(self, counts: dict[str, int], workspace_id: str) -> None:
        changed = self._condition()
        async with changed:
            _count(counts, workspace_id, -1)
            changed.notify_all()


def _count(counts: dict[str, int], workspace_id: str, step: int) -> None:
    """Add ``step`` to the workspace's count; a count back at 0 is dropped (the dicts hold only workspaces busy now)."""
    counts[workspace_id] = counts.get(workspace_id, 0) + step
    if not counts[workspace_id]:
        del counts[workspace_id]


def gone(workspace_id: str, memory_ids: Iterable[str]) -> NotFoundError:
    """The error of a write whose ``must_exist`` memories are no longer there."""
    ids = ", ".join(repr(i) for i in memory_ids)
    return NotFoundError(
        f"no memory {ids} in workspace '{workspace_id}' any more: it was deleted (or its user forgotten) while "
        "this write was under way; nothing of the write was stored"
    )
