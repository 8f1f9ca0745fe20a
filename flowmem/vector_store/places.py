"""Reads around a place in a store's order of memories (``created_at``, then ``memory_id``): the memories just before
and after it, counted in memories or in turns, and the newest.

Part of the :class:`~flowmem.vector_store.base.VectorStore` base (a mixin only to keep modules small): each read is
ordered and limited (:data:`MAX_ADJACENT` a side), its scope and id rules checked here before any backend sees it,
and what a backend returns of another workspace, or the place itself, is dropped.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from datetime import datetime

from flowmem.core.errors import InputError, Problem
from flowmem.schema.memory import Memory
from flowmem.vector_store.batch import AdjacentRead
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.rules import check_ids, check_scope
from flowmem.vector_store.turns import paged_turns

MAX_ADJACENT = 1_000  # memories per side of one adjacent() read: "around a memory" is a handful
# A place of turns_around(): (created_at, memory_id, its sources, filters); and turns, nearest first, each its memories.
TurnPlace = tuple[datetime, str, Sequence[str], MemoryFilter | None]
Turns = list[list[Memory]]
# The place newest() reads back from: after every memory a store holds (ids never come near it in that second).
END_OF_TIME, LAST_ID = datetime(9999, 12, 31, 23, 59, 59), "~"


class PlaceReads:
    """The reads-around-a-place half of the store interface. Backends implement ``_adjacent``, and may override
    ``_adjacent_many`` and ``_turns_around`` to answer in one step."""

    # The store's own (VectorStore): the filter check.
    _checked: Callable[[MemoryFilter | None], MemoryFilter]

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
