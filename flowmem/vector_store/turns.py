"""Turns: the memories said in one message, counted as one.

A message may be kept as several memories (split into facts: get_observation_op's ``split_facts``), said at one
time. Reads "the turns around a memory" (:meth:`VectorStore.turns_around
<flowmem.vector_store.base.VectorStore.turns_around>`) count turns, not memories, the same way on every store:
walking outwards from the place in the order of :meth:`~flowmem.vector_store.base.VectorStore.iterate`, a memory
that shares a source (message id) with the place is of the place's own turn and is skipped; the others form runs,
a run going on while each next memory shares a source with the run's first (a memory without sources is its
own turn). :class:`TurnRuns` is that rule, fed one memory at a time, so a store reads no further than the turns wanted;
:func:`paged_turns` reads turns from a store that reads around a place in memories (Elasticsearch).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Generic, TypeVar

from flowmem.schema.memory import Memory
from flowmem.vector_store.batch import AdjacentRead

T = TypeVar("T")
Sides = tuple[list[Memory], list[Memory]]


class TurnRuns(Generic[T]):
    """Up to ``limit`` turns of the memories :meth:`add`-ed nearest first (each ``T``: an id or a memory).

    Attributes:
        turns: The turns so far, nearest first, each its memories in the order given.
        full: A memory of the turn after the last wanted one was seen: the turns are complete.
    """

    def __init__(self, own: Collection[str], limit: int):
        self._own = frozenset(own)
        self._limit = limit
        self._current: frozenset[str] = frozenset()
        self.turns: list[list[T]] = []
        self.full = limit <= 0

    def add(self, item: T, memory_id: str, sources: Sequence[str]) -> bool:
        """Count the next memory out; False once the turns are complete (``item`` is then not kept)."""
        if self.full:
            return False
        said_in = frozenset(sources) or frozenset((memory_id,))
        if said_in & self._own:
            return True  # the place's own turn: no turn around it
        if not said_in & self._current:
            if len(self.turns) == self._limit:
                self.full = True
                return False
            self.turns.append([])
            self._current = said_in
        self.turns[-1].append(item)
        return True


async def paged_turns(
    adjacent_many: Callable[[list[AdjacentRead]], Awaitable[list[Sides]]],
    workspace_id: str,
    reads: list[AdjacentRead],
    most: int,
) -> list[tuple[list[list[Memory]], list[list[Memory]]]]:
    """Each read's turns from a store that reads around places in memories (``adjacent_many``: the backend's
    ``_adjacent_many``), page by page: every side still short of its turns in one call, each page from the last
    memory read. The first page is the turns wanted plus one (turns of one memory each: one page, and the memory past
    the last turn says it is complete), the next as large as all read before it (a turn of several memories, the
    place's own turn); a side stops at ``most`` memories read."""
    runs: list[tuple[TurnRuns[Memory], TurnRuns[Memory]]] = [
        (TurnRuns(read.own, read.before), TurnRuns(read.own, read.after)) for read in reads
    ]
    pending = [(i, side) for i, read in enumerate(reads) for side in (0, 1) if (read.before, read.after)[side]]
    last = {key: (reads[key[0]].at, reads[key[0]].memory_id) for key in pending}
    read_so_far = dict.fromkeys(pending, 0)
    while pending:
        pages = []
        for i, side in pending:
            size = min((reads[i].before, reads[i].after)[side] + 1 + read_so_far[(i, side)], most)
            at, memory_id = last[(i, side)]
            pages.append(dataclasses.replace(reads[i], at=at, memory_id=memory_id, before=0 if side else size,
                                             after=size if side else 0))  # fmt: skip
        still = []
        for key, page, answer in zip(pending, pages, await adjacent_many(pages), strict=True):
            i, side = key
            got = answer[side]
            counted = runs[i][side]
            for memory in got:
                if memory.workspace_id == workspace_id and memory.memory_id != reads[i].memory_id:
                    counted.add(memory, memory.memory_id, memory.source)
            read_so_far[key] += len(got)
            if got:
                last[key] = (got[-1].created_at, got[-1].memory_id)
            if not counted.full and len(got) == page.before + page.after and read_so_far[key] < most:
                still.append(key)
        pending = still
    return [(before.turns, after.turns) for before, after in runs]
