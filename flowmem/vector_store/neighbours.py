"""The memories said just before and after a memory, in the same conversation: context around a hit.

Counted in memories (:func:`said_around`) or in turns (:func:`said_around_many` ``in_turns``: a message split into
facts is one turn, :meth:`VectorStore.turns_around`). One read per memory: :meth:`VectorStore.adjacent` — the nearest
memories before and after it in the order of :meth:`VectorStore.iterate`, ``(created_at, memory_id)``, in scope,
with a limit per side — so its cost is the few turns wanted, however many memories were created in the same
second (a bulk load). A memory made from a message is created at the message's time (to the second; the ``msg_*``
parts keep only the hour), so that order is the order things were said.

What counts as the same conversation: walking outwards from the memory, each next memory must
be said within ``max_gap`` of the one before it (a pause longer than that starts another
conversation — the usual session timeout of analytics, 30 minutes, is the default callers use),
and when both carry a ``metadata["session"]`` it must be the same session.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from flowmem.schema.memory import Memory
from flowmem.vector_store.base import VectorStore
from flowmem.vector_store.filters import MemoryFilter

SESSION_KEY = "session"


@dataclass(frozen=True)
class Neighbour:
    """A memory said near another.

    Attributes:
        memory: The neighbouring memory (with its vector when asked for).
        offset: Its place relative to the memory it neighbours: -1 said just before, 1 just after, 2 the one after.
    """

    memory: Memory
    offset: int


async def said_around(
    store: VectorStore,
    workspace_id: str,
    memory: Memory,
    filters: MemoryFilter,
    *,
    before: int,
    after: int,
    max_gap: timedelta,
    with_vectors: bool = False,
) -> list[Neighbour]:
    """Up to ``before`` memories said just before ``memory`` and ``after`` just after, in its conversation.

    Args:
        store: The store to read.
        workspace_id: The scope (every read is scoped, as always).
        memory: The memory whose neighbours are wanted; its ``created_at`` is when it was said.
        filters: Which memories may be neighbours (target, status, types); its created window is set here.
        before: How many memories said before it.
        after: How many memories said after it.
        max_gap: The longest pause within one conversation.
        with_vectors: Read the neighbours' vectors too.

    Returns:
        The neighbours, nearest first on each side (offsets -1, 1, -2, 2, …), without ``memory`` itself.
    """
    before, after = max(before, 0), max(after, 0)
    if before == after == 0:
        return []
    earlier, later = await store.adjacent(
        workspace_id, memory.created_at, memory.memory_id, _reach(memory, filters, before, after, max_gap),
        before=before, after=after, with_vectors=with_vectors,
    )  # fmt: skip
    return _arranged(memory, earlier, later, max_gap)


async def said_around_many(
    store: VectorStore,
    workspace_id: str,
    memories: Sequence[Memory],
    filters: MemoryFilter,
    *,
    before: int,
    after: int,
    max_gap: timedelta,
    with_vectors: bool = False,
    in_turns: bool = False,
) -> list[list[Neighbour]]:
    """:func:`said_around` for each of ``memories`` (one list of neighbours each, in order), read together:
    :meth:`VectorStore.adjacent_many` (the local store: one hop to its thread and one records query).

    ``in_turns``: ``before`` and ``after`` count turns, and every memory of a turn has that turn's offset (-1, 1, 2,
    …). A message split into facts is several memories said at one time, one turn; the memories sharing a source
    with the memory (its own message's other facts) are no neighbours of it. The store reads the turns
    (:meth:`VectorStore.turns_around`: the local store stops at a turn's end), not a guess of memories per turn.
    """
    before, after = max(before, 0), max(after, 0)
    if before == after == 0:
        return [[] for _ in memories]
    if in_turns:
        places = [(m.created_at, m.memory_id, m.source, _reach(m, filters, before, after, max_gap)) for m in memories]
        turns = await store.turns_around(workspace_id, places, before=before, after=after, with_vectors=with_vectors)
        return [
            _paired(_walk_turns(m, earlier, max_gap, -1), _walk_turns(m, later, max_gap, 1))
            for m, (earlier, later) in zip(memories, turns, strict=True)
        ]
    plain = [(m.created_at, m.memory_id, _reach(m, filters, before, after, max_gap)) for m in memories]
    sides = await store.adjacent_many(workspace_id, plain, before=before, after=after, with_vectors=with_vectors)
    return [_arranged(m, earlier, later, max_gap) for m, (earlier, later) in zip(memories, sides, strict=True)]


def _reach(memory: Memory, filters: MemoryFilter, before: int, after: int, max_gap: timedelta) -> MemoryFilter:
    """``filters`` within the times the walk can reach: no neighbour n steps away can be further than n pauses of
    at most ``max_gap``, so the store may skip what the walk would stop at anyway (the limits bound the read
    either way)."""
    said = memory.created_at
    return filters.model_copy(
        update={
            "created_after": said - max_gap * before,
            "created_before": said + max_gap * after + timedelta(seconds=1),
        }
    )


def _arranged(memory: Memory, earlier: list[Memory], later: list[Memory], max_gap: timedelta) -> list[Neighbour]:
    """The neighbours of both sides, nearest first (offsets -1, 1, -2, 2, …)."""
    return _paired(_walk(memory, earlier, max_gap, -1), _walk(memory, later, max_gap, 1))


def _paired(sooner: list[Neighbour], afterwards: list[Neighbour]) -> list[Neighbour]:
    """Both sides' neighbours (each nearest first) taken in turn from each, then the rest of the longer side."""
    found = [n for pair in zip(sooner, afterwards, strict=False) for n in pair]
    longer = sooner if len(sooner) > len(afterwards) else afterwards
    return found + longer[min(len(sooner), len(afterwards)) :]


def _walk(start: Memory, memories: Iterable[Memory], max_gap: timedelta, step: int) -> list[Neighbour]:
    """The memories one side of ``start`` (given nearest first) while the conversation goes on."""
    found: list[Neighbour] = []
    previous = start
    for memory in memories:
        if abs(memory.created_at - previous.created_at) > max_gap or not same_session(start, memory):
            break
        found.append(Neighbour(memory, step * (len(found) + 1)))
        previous = memory
    return found


def _walk_turns(start: Memory, turns: list[list[Memory]], max_gap: timedelta, step: int) -> list[Neighbour]:
    """:func:`_walk` over the memories of ``turns`` (nearest first), each with its turn's offset."""
    flat = [(memory, k) for k, turn in enumerate(turns, start=1) for memory in turn]
    walked = _walk(start, (memory for memory, _ in flat), max_gap, step)
    return [Neighbour(n.memory, step * k) for n, (_, k) in zip(walked, flat, strict=False)]


def same_session(a: Memory, b: Memory) -> bool:
    """False only when both memories name a session and the sessions differ."""
    first, second = a.metadata.get(SESSION_KEY), b.metadata.get(SESSION_KEY)
    return first is None or second is None or first == second
