"""Every op of the retrieval flow reads a bounded number of memories, whatever the store holds (issue 24, point 1).

A bulk load (``store import``, a loop of ``memories.add(text=...)``, a chat file without times) creates
thousands of memories within a few seconds. Reads "around a memory" that take a time window then read
all of them for every hit. Here: one user's memories, all created within three seconds, a quarter of
them conversation turns; ``personal_retrieve`` for a few queries; the memories the store's public reads
hand back are counted per query, at 2,000 and at 10,000 memories. The counts must stay small and must
not grow with the store.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from flowmem import App
from flowmem.schema.memory import MEMORY_TYPES, Memory
from flowmem.testing.read_counter import count_reads

CREATED = datetime(2024, 6, 12, 19, 0)  # all within three seconds of this
NOW = datetime(2024, 6, 12, 20, 0)
QUERIES = [
    "what did I do last weekend?",
    "where does my sister live?",
    "which restaurants do I like?",
    "how is my knee doing?",
]
TOPICS = ["hiking", "restaurant", "sister", "knee", "guitar", "Lisbon", "weekend", "doctor", "coffee", "train"]
BOUND = 300  # memories per query, all reads together: a few times what the flow returns and looks at
BATCH = 2_000


def bulk(n: int, dims: int) -> list[Memory]:
    """``n`` memories of alice created within three seconds, a quarter of each type; vectors filled in later."""
    return [
        Memory(
            workspace_id="default",
            memory_id=f"m{i:06d}",
            target="alice",
            memory_type=MEMORY_TYPES[i % 4],
            content=f"note {i}: about {TOPICS[i % len(TOPICS)]} and {TOPICS[(i // 7) % len(TOPICS)]}",
            created_at=CREATED + timedelta(milliseconds=3_000 * i // n),
        )
        for i in range(n)
    ]


def reads_per_query(backend: str, n: int, directory: Path) -> list[int]:
    overrides = [f"vector_store.default.backend={backend}", "embedding_model.default.backend=hash"]
    if backend == "local":
        overrides += [
            f"vector_store.default.params.directory={directory}",
            "vector_store.default.params.synchronous=normal",
        ]
    with App(overrides=overrides) as app:
        store = app.vector_store()

        async def fill() -> None:
            memories = bulk(n, app.embedding_model().dims)
            for start in range(0, n, BATCH):
                chunk = memories[start : start + BATCH]
                vectors = await app.embedding_model().embed([m.content for m in chunk])
                await store.upsert(
                    "default", [m.model_copy(update={"vector": v}) for m, v in zip(chunk, vectors, strict=True)]
                )

        app.run_coroutine(fill())
        counts = []
        for query in QUERIES:
            with count_reads(store) as reads:
                response = app.run_sync("personal_retrieve", query=query, user_id="alice", timestamp=NOW)
            assert response.memories, query
            counts.append(reads.total)
        return counts


@pytest.mark.parametrize("backend", ["memory", "local"])
def test_retrieval_reads_do_not_grow_with_the_store(backend: str, tmp_path: Path) -> None:
    small = reads_per_query(backend, 2_000, tmp_path / "small")
    large = reads_per_query(backend, 10_000, tmp_path / "large")
    print(f"{backend}: memories read per query at 2k {small}, at 10k {large}")
    assert max(large) <= BOUND, f"memories read per query at 10k: {large} (at 2k: {small})"
    for few, many in zip(small, large, strict=True):
        assert many <= few + 20, f"reads grew with the store: {small} at 2k, {large} at 10k"
