"""Turns: the memories said in one message, counted as one.

A message may be kept as several memories (split into facts: get_observation_op's ``split_facts``), said at one
time. Reads "the turns around a memory" (:meth:`VectorStore.turns_around
<flowmem.vector_store.base.VectorStore.turns_around>`) count turns, not memories, the same way on every store:
walking outwards from the place in the order of :meth:`~flowmem.vector_store.base.VectorStore.iterate`, a memory
that shares a source (message id) with the place is of the place's own turn and is skipped; the others form runs,
a run going on while each next memory shares a source with the run's first (a memory without sources is its
own turn). :class:`TurnRuns` is that rule, fed one memory at a time, so a store reads no further than the turns wanted.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


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
