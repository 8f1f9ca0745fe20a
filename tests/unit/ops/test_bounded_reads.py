"""Every op of the shipped flows reads a bounded number of memories, whatever the store holds (issue 24, point 1).

A bulk load (``store import``, a loop of ``memories.add(text=...)``, a chat file without times) creates
thousands of memories within a few seconds. Reads "around a memory" that take a time window then read
all of them for every hit; reads of "all the user's facts / entities / slot holders" read the whole user.
Here: one user's memories, all created within three seconds, a quarter of them conversation turns, some
entities, a few holding a slot; then the shipped flows — ``personal_retrieve`` for a few queries, a few
``chat_context`` turns, ``personal_summary`` batches stating facts and ``personal_add`` texts — and the
memories the store's public reads hand back are counted per call, at 2,000 and at 10,000 memories. The
counts must stay under each flow's bound and must not grow with the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flowmem.ops.entity_memory_op import ENTITY_KEY, entity_memory_id

from flowmem import App
from flowmem.schema.memory import MEMORY_TYPES, Memory, Message
from flowmem.scoring.slots import SLOTS_KEY
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
STATEMENTS = [  # what the write flows are given: facts that fill slots, an ending, and plain notes
    ["I live in Porto now.", "I went hiking with Ana last weekend.", "My knee hurts after the run."],
    ["I work at Globex since Monday.", "We had dinner at the ramen restaurant.", "Coffee with my sister Ana."],
    ["My dog is called Rex.", "The train to Lisbon was late again.", "I practised guitar for an hour."],
    ["Rex ran away.", "I moved to Braga.", "The doctor said the knee is fine."],
]
BATCH = 2_000
# Memories read per call, all reads together: a few times what each flow returns and looks at.
BOUNDS = {"personal_retrieve": 300, "chat_context": 700, "personal_summary": 300, "personal_add": 100}


def bulk(n: int) -> list[Memory]:
    """``n`` memories of alice created within three seconds: a quarter of each recalled type, one in twenty an
    entity, a handful holding a slot; vectors filled in later."""
    memories = []
    for i in range(n):
        kind = "entity" if i % 20 == 19 else MEMORY_TYPES[i % 4]
        content = f"note {i}: about {TOPICS[i % len(TOPICS)]} and {TOPICS[(i // 7) % len(TOPICS)]}"
        metadata: dict[str, Any] = {SLOTS_KEY: {"residence": "lisbon"} if i == 1 else {}}
        memory_id = f"m{i:06d}"
        if kind == "entity":
            name = TOPICS[(i // 20) % len(TOPICS)] if i < 200 else f"{TOPICS[(i // 20) % len(TOPICS)]} {i}"
            memory_id = entity_memory_id("default", "alice", name)
            at = CREATED.isoformat()
            mention = {"text": content, "at": at, "source": f"msg{i}"}
            metadata[ENTITY_KEY] = {"name": name, "kind": "thing", "relations": [], "mentions": [mention],
                                    "description": content}  # fmt: skip
        memories.append(Memory(
            workspace_id="default", memory_id=memory_id, target="alice", memory_type=kind, content=content,
            created_at=CREATED + timedelta(milliseconds=3_000 * i // n), metadata=metadata,
        ))  # fmt: skip
    return memories


@contextmanager
def bulk_store(backend: str, n: int, directory: Path) -> Iterator[App]:
    """An app whose store holds :func:`bulk` ``n`` (hash embedder, so no model time)."""
    overrides = [f"vector_store.default.backend={backend}", "embedding_model.default.backend=hash"]
    if backend == "local":
        overrides += [
            f"vector_store.default.params.directory={directory}",
            "vector_store.default.params.synchronous=normal",
        ]
    with App(overrides=overrides) as app:

        async def fill() -> None:
            memories = bulk(n)
            for start in range(0, n, BATCH):
                chunk = memories[start : start + BATCH]
                vectors = await app.embedding_model().embed([m.content for m in chunk])
                await app.vector_store().upsert(
                    "default", [m.model_copy(update={"vector": v}) for m, v in zip(chunk, vectors, strict=True)]
                )

        app.run_coroutine(fill())
        yield app


def calls(app: App) -> dict[str, list[Callable[[], Any]]]:
    """Four calls of each shipped flow, as users make them."""
    memories = app.memories

    def summary(k: int) -> Callable[[], Any]:
        said = [Message(message_id=f"s{k}-{j}", content=text, time_created=NOW + timedelta(minutes=10 * k + j))
                for j, text in enumerate(STATEMENTS[k])]  # fmt: skip
        return lambda: app.run_coroutine(memories.add(said, user_id="alice"))

    def add(k: int) -> Callable[[], Any]:
        text = " ".join(STATEMENTS[k][:2])
        return lambda: app.run_coroutine(memories.add(text=text, user_id="alice", timestamp=NOW + timedelta(hours=k)))

    def turn(query: str) -> Callable[[], Any]:
        return lambda: app.run_coroutine(memories.context(query, user_id="alice", session_id="chat", timestamp=NOW))

    def retrieve(query: str) -> Callable[[], Any]:
        return lambda: app.run_sync("personal_retrieve", query=query, user_id="alice", timestamp=NOW)

    return {
        "personal_retrieve": [retrieve(q) for q in QUERIES],
        "chat_context": [turn(q) for q in QUERIES],
        "personal_summary": [summary(k) for k in range(len(STATEMENTS))],
        "personal_add": [add(k) for k in range(len(STATEMENTS))],
    }


def reads_per_call(backend: str, n: int, directory: Path) -> dict[str, list[int]]:
    """Memories the store's public reads handed back, per call of each flow, on a fresh store of ``n``."""
    counts: dict[str, list[int]] = {}
    with bulk_store(backend, n, directory) as app:
        for flow, made in calls(app).items():
            counts[flow] = []
            for call in made:
                with count_reads(app.vector_store()) as reads:
                    call()
                counts[flow].append(reads.total)
    return counts


@pytest.mark.parametrize("backend", ["memory", "local"])
def test_reads_of_every_shipped_flow_do_not_grow_with_the_store(backend: str, tmp_path: Path) -> None:
    small = reads_per_call(backend, 2_000, tmp_path / "small")
    large = reads_per_call(backend, 10_000, tmp_path / "large")
    for flow, bound in BOUNDS.items():
        print(f"{backend} {flow}: memories read per call at 2k {small[flow]}, at 10k {large[flow]}")
        assert max(large[flow]) <= bound, f"{flow}: memories read per call at 10k: {large[flow]} (2k: {small[flow]})"
        for few, many in zip(small[flow], large[flow], strict=True):
            assert many <= few + 20, f"{flow}: reads grew with the store: {small[flow]} at 2k, {large[flow]} at 10k"


def test_memories_stored_before_slots_are_read_once() -> None:
    # A store from before slots were stored: the first message stating a fact reads those memories (their slots
    # from their words) and writes their slots back; the next reads only the holders.
    with bulk_store("memory", 2_000, Path()) as app:
        store = app.vector_store()

        async def forget_slots() -> None:
            legacy = [m async for batch in store.iterate("default", with_vectors=True) for m in batch]
            for m in legacy:
                m.metadata.pop(SLOTS_KEY, None)
            await store.upsert("default", legacy)

        app.run_coroutine(forget_slots())
        add = calls(app)["personal_add"]
        with count_reads(store) as first:
            add[0]()
        with count_reads(store) as second:
            add[1]()
    assert first.total >= 1_500, first  # the recalled memories of alice, once
    assert second.total <= BOUNDS["personal_add"], second
