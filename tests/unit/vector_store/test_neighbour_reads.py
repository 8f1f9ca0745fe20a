"""said_around reads little: one limited read of the store per memory, whether its neighbours are near or apart."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from flowmem.testing.conformance_neighbours import turn
from flowmem.testing.read_counter import PUBLIC_READS, count_reads
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.memory import MemoryStore
from flowmem.vector_store.neighbours import said_around

GAP = timedelta(minutes=30)


def _reads(memories: list[Any], hit_id: str) -> tuple[list[str], dict[str, int]]:
    store = MemoryStore()

    async def main() -> tuple[list[str], dict[str, int]]:
        await store.upsert("w", memories)
        hit = (await store.get("w", [hit_id]))[0]
        with count_reads(store, PUBLIC_READS) as reads:
            found = await said_around(store, "w", hit, MemoryFilter(target="alice"), before=1, after=2, max_gap=GAP)
        return [n.memory.memory_id for n in found], dict(reads.calls)

    return asyncio.run(main())


def test_a_chat_turn_is_one_read() -> None:
    chat = [turn("w", f"t{i}", 5 * i, i + 1) for i in range(6)]
    assert _reads(chat, "t2") == (["t1", "t3", "t4"], {"adjacent": 1})


def test_a_memory_said_apart_is_one_read_too() -> None:
    # Nothing within minutes either side: no window to widen step by step, the nearest are read at once.
    apart = [turn("w", "note", 0, 1), turn("w", "earlier", -20 * 60, 2), turn("w", "later", 25 * 60, 3)]
    assert _reads(apart, "note") == (["earlier", "later"], {"adjacent": 1})


def test_a_neighbour_beyond_the_pause_is_not_read() -> None:
    # Over max_gap away: the walk would stop before it, so the read's window leaves it out.
    far = [turn("w", "note", 0, 1), turn("w", "next-day", 86_400, 2)]
    assert _reads(far, "note") == ([], {"adjacent": 1})
