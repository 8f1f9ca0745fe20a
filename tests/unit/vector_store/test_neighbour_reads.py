"""said_around reads little: one window for a chat turn, two for a memory said apart from any other."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

from flowmem.testing.conformance_neighbours import turn
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.memory import MemoryStore
from flowmem.vector_store.neighbours import said_around

GAP = timedelta(minutes=30)


def _reads(memories: list[Any], hit_id: str) -> tuple[list[str], int]:
    store = MemoryStore()
    reads = 0
    iterate = store.iterate

    def counted(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        nonlocal reads
        reads += 1
        return iterate(*args, **kwargs)

    store.iterate = counted  # type: ignore[method-assign]

    async def main() -> list[str]:
        await store.upsert("w", memories)
        hit = (await store.get("w", [hit_id]))[0]
        found = await said_around(store, "w", hit, MemoryFilter(target="alice"), before=1, after=2, max_gap=GAP)
        return [n.memory.memory_id for n in found]

    return asyncio.run(main()), reads


def test_a_chat_turn_is_one_read() -> None:
    chat = [turn("w", f"t{i}", 5 * i, i + 1) for i in range(6)]
    assert _reads(chat, "t2") == (["t1", "t3", "t4"], 1)


def test_a_memory_said_apart_reads_its_whole_window_at_once_not_step_by_step() -> None:
    # Nothing within minutes either side: stepping 15 s, 2 min, 16 min, 30 min would read four empty windows.
    apart = [turn("w", "note", 0, 1), turn("w", "earlier", -20 * 60, 2), turn("w", "later", 25 * 60, 3)]
    assert _reads(apart, "note") == (["earlier", "later"], 2)
