"""WorkspaceIndex.adjacent reads only the window its created bounds allow, and answers as the filter's own semantics."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import numpy as np

from flowmem.schema.memory import Memory
from flowmem.vector_store.filters import MemoryFilter, created_epoch
from flowmem.vector_store.index import Row, WorkspaceIndex

BASE = datetime(2024, 1, 1)


def reference(memories: list[Memory], place: Memory, flt: MemoryFilter, before: int, after: int) -> tuple[list, list]:
    """The rows meeting ``flt`` (MemoryFilter.matches) ordered by (created, id), nearest first on each side."""
    key = (created_epoch(place.created_at), place.memory_id)
    kept = sorted((created_epoch(m.created_at), m.memory_id) for m in memories if flt.matches(m))
    earlier = [i for at, i in reversed(kept) if (at, i) < key and i != place.memory_id][:before]
    later = [i for at, i in kept if (at, i) >= key and i != place.memory_id][:after]
    return earlier, later


def test_adjacent_within_created_bounds_equals_the_filters_semantics() -> None:
    rng = random.Random(11)
    reads = 0
    for _ in range(150):
        memories = [
            Memory(
                workspace_id="w", memory_id=f"m{rng.randint(0, 99):02d}-{i}", content="x", target=rng.choice("ab"),
                status=rng.choice(["valid", "valid", "expired"]),
                created_at=BASE + timedelta(seconds=rng.choice([0, 1, 60, 3600]) * rng.randint(0, 4)),
            )
            for i in range(rng.randint(1, 40))
        ]  # fmt: skip
        index = WorkspaceIndex(2)
        index.put([Row.of(m) for m in memories], np.ones((len(memories), 2), dtype=np.float32))
        gone = rng.sample(memories, k=min(2, len(memories)))
        for memory in gone:
            index.remove(memory.memory_id)
        alive = [m for m in memories if m not in gone]
        for _ in range(15):
            place = rng.choice(memories)
            window: dict[str, object] = {"target": rng.choice("ab")} if rng.random() < 0.5 else {}
            if rng.random() < 0.7:
                window["created_after"] = place.created_at - timedelta(seconds=rng.choice([0, 1, 61, 10**6]))
            if rng.random() < 0.7:
                window["created_before"] = place.created_at + timedelta(seconds=rng.choice([-1, 0, 1, 61, 10**6]))
            flt = MemoryFilter(**window)  # type: ignore[arg-type]
            before, after = rng.randint(0, 3), rng.randint(0, 3)
            found = index.adjacent(created_epoch(place.created_at), place.memory_id, flt, before, after)
            assert found == reference(alive, place, flt, before, after), (window, before, after)
            reads += 1
    assert reads == 150 * 15
