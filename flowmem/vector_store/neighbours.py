"""The memories said just before and after a memory, in the same conversation: context around a hit.

Built on what every store already does alike (the conformance suite proves it): :meth:`VectorStore.iterate`
with a ``created_after``/``created_before`` window, in scope, ordered by ``(created_at, memory_id)``. A
memory made from a message is created at the message's time (to the second; the ``msg_*`` parts
keep only the hour), so that order is the order things were said, and no store needs a new
method or column.

What counts as the same conversation: walking outwards from the memory, each next memory must
be said within ``max_gap`` of the one before it (a pause longer than that starts another
conversation — the usual session timeout of analytics, 30 minutes, is the default callers use),
and when both carry a ``metadata["session"]`` it must be the same session.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from flowmem.schema.memory import Memory
from flowmem.vector_store.base import VectorStore
from flowmem.vector_store.filters import MemoryFilter

SESSION_KEY = "session"
# The first read looks this far per wanted turn (chat turns are usually seconds apart), then WIDEN times
# further each time a side runs out before its conversation ends, up to max_gap per turn.
FIRST_STEP = timedelta(seconds=15)
WIDEN = 8


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
    if before <= 0 and after <= 0:
        return []
    said = memory.created_at
    # No neighbour n steps away can be further than n pauses of at most max_gap; but reading that
    # whole window (an hour of a busy chat) costs more than the few turns wanted, so the read starts
    # narrow and widens only while a side runs out of memories before the conversation ends.
    full_before, full_after = max_gap * max(before, 0), max_gap * max(after, 0)
    step = min(FIRST_STEP, max_gap)
    while True:
        span_before, span_after = min(step * before, full_before), min(step * after, full_after)
        around = await _read(store, workspace_id, filters, said - span_before, said + span_after, with_vectors)
        at = next((i for i, m in enumerate(around) if m.memory_id == memory.memory_id), None)
        if at is None:  # not stored (or filtered out): place it by time among the others
            at = sum(1 for m in around if (m.created_at, m.memory_id) < (said, memory.memory_id))
            around.insert(at, memory)
        earlier, ended_before = _walk(memory, reversed(around[:at]), before, max_gap, -1)
        later, ended_after = _walk(memory, around[at + 1 :], after, max_gap, 1)
        if (ended_before or span_before >= full_before) and (ended_after or span_after >= full_after):
            break
        if (not earlier and not ended_before) or (not later and not ended_after):
            # Nothing at all near on a side that goes on: the memory is said apart from others (a note, not a
            # chat), so widening step by step would read an empty window several times; read the whole one.
            step = max(step * WIDEN, max_gap)
        else:
            step *= WIDEN
    found = [n for pair in zip(earlier, later, strict=False) for n in pair]
    longer = earlier if len(earlier) > len(later) else later
    return found + longer[min(len(earlier), len(later)) :]


async def _read(
    store: VectorStore, workspace_id: str, filters: MemoryFilter, low: datetime, high: datetime, with_vectors: bool
) -> list[Memory]:
    """The memories created in ``[low, high]`` (to the second), ordered by (created_at, memory_id)."""
    window = filters.model_copy(update={"created_after": low, "created_before": high + timedelta(seconds=1)})
    found: list[Memory] = []
    async for batch in store.iterate(workspace_id, window, with_vectors=with_vectors):
        found.extend(batch)
    return found


def _walk(
    start: Memory, memories: Iterable[Memory], count: int, max_gap: timedelta, step: int
) -> tuple[list[Neighbour], bool]:
    """Up to ``count`` memories one side of ``start``, nearest first, while the conversation goes on; and
    whether the walk ended (enough found, a long pause, another session) rather than ran out of memories."""
    found: list[Neighbour] = []
    previous = start
    for memory in memories:
        if len(found) >= count or abs(memory.created_at - previous.created_at) > max_gap:
            return found, True
        if not same_session(start, memory):
            return found, True
        found.append(Neighbour(memory, step * (len(found) + 1)))
        previous = memory
    return found, len(found) >= count


def same_session(a: Memory, b: Memory) -> bool:
    """False only when both memories name a session and the sessions differ."""
    first, second = a.metadata.get(SESSION_KEY), b.metadata.get(SESSION_KEY)
    return first is None or second is None or first == second
