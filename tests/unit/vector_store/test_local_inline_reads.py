"""The local store's retrieval reads on the caller's thread: only when cheap and safe, and the same answers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flowmem.testing.conformance import memory, unit
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.local.store import LocalStore

WS = "ws"
READS = ("_search_many_sync", "_lexical_sync", "_adjacent_sync", "_stored_vectors_sync")


def open_store(directory: Path, inline_read_memories: int = 20_000) -> LocalStore:
    params = LocalStore.Params(directory=str(directory), inline_read_memories=inline_read_memories)  # type: ignore[arg-type]
    return LocalStore(params)


def record_threads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(read, thread name) of every read the local store makes from now on."""
    seen: list[tuple[str, str]] = []

    def recording(name: str, read: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(self: LocalStore, *args: Any) -> Any:
            seen.append((name, threading.current_thread().name))
            return read(self, *args)

        return wrapper

    for name in READS:
        monkeypatch.setattr(LocalStore, name, recording(name, getattr(LocalStore, name)))
    return seen


async def every_read(store: LocalStore) -> list[Any]:
    """One of each read a retrieval makes, as plain values (ids, scores, vectors) to compare."""
    flt = MemoryFilter(target="u")
    found = await store.search(WS, unit(3), 5, flt)
    words = await store.lexical_search(WS, "memory 7", 5, flt)
    place = found[0]
    [(before, after)] = await store.adjacent_many(WS, [(place.created_at, place.memory_id, flt)], before=2, after=2)
    vectors = await store.stored_vectors(WS, [m.memory_id for m in found])
    return [
        [(m.memory_id, round(m.scores["similarity"], 6)) for m in found],
        [(m.memory_id, m.scores) for m in words],
        [m.memory_id for m in before + after],
        {i: v.tolist() for i, v in sorted(vectors.items())},
    ]


def fill(store: LocalStore, count: int = 30) -> None:
    asyncio.run(store.upsert(WS, [memory(WS, f"m{i}", i, content=f"memory {i}", target="u") for i in range(count)]))


def test_a_small_current_workspace_is_read_on_the_callers_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = record_threads(monkeypatch)

    async def main() -> None:
        store, writer = open_store(tmp_path), open_store(tmp_path)
        await writer.upsert(WS, [memory(WS, f"m{i}", i, content=f"memory {i}", target="u") for i in range(30)])
        await store.search(WS, unit(1), 3)  # loads the index: on the store's thread
        assert [t.startswith("flowmem-local") for _, t in seen] == [True]
        seen.clear()
        await every_read(store)
        assert {name for name, _ in seen} == set(READS)
        assert {t for _, t in seen} == {threading.current_thread().name}
        seen.clear()
        await writer.upsert(WS, [memory(WS, "new", 100, target="u")])  # another handle: this index is behind
        [top] = await store.search(WS, unit(100), 1)
        assert top.memory_id == "new" and seen[0][1].startswith("flowmem-local")  # caught up on the store's thread
        await store.aclose()
        await writer.aclose()

    asyncio.run(main())


def test_a_workspace_larger_than_inline_read_memories_is_read_on_the_stores_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = record_threads(monkeypatch)
    store = open_store(tmp_path, inline_read_memories=29)
    fill(store, 30)

    async def main() -> None:
        await store.search(WS, unit(1), 3)
        await every_read(store)
        await store.aclose()

    asyncio.run(main())
    assert len(seen) == 5 and all(t.startswith("flowmem-local") for _, t in seen)


def test_reads_on_either_thread_are_the_same(tmp_path: Path) -> None:
    fill(open_store(tmp_path), 40)

    async def reads(inline_read_memories: int) -> list[Any]:
        store = open_store(tmp_path, inline_read_memories)
        await store.search(WS, unit(0), 1)  # the index loaded, so the next reads may run inline
        try:
            return await every_read(store)
        finally:
            await store.aclose()

    inline, threaded = asyncio.run(reads(20_000)), asyncio.run(reads(0))
    assert inline == threaded
    assert len(inline[0]) == 5 and inline[1] and inline[2] and len(inline[3]) == 5


def test_a_read_waits_for_the_store_thread_to_finish_its_work(tmp_path: Path) -> None:
    """While the store's thread holds the lock (a write under way), a read does not run beside it on the caller's
    thread: it queues behind the work on the store's thread."""
    store = open_store(tmp_path)
    fill(store, 30)

    async def main() -> None:
        await store.search(WS, unit(1), 1)
        store._lock.acquire()  # what the store's thread holds while it writes
        try:
            search = asyncio.ensure_future(store.search(WS, unit(2), 1))
            await asyncio.sleep(0.2)
            assert not search.done()
        finally:
            store._lock.release()
        [top] = await search
        assert top.memory_id == "m2"
        np.testing.assert_allclose(top.scores["similarity"], 1.0, atol=1e-5)
        await store.aclose()

    asyncio.run(main())
