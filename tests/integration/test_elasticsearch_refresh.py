"""The Elasticsearch store's writes under concurrency: each one is searchable when it returns, and
concurrent writers share refreshes (flowmem.vector_store.elasticsearch.refresh) instead of forcing one each.

The indices get ``refresh_interval: -1``: no scheduled refresh, so only the store's own refreshes
can make a write visible, and a write that returned without one is caught every time.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Iterator

import pytest

from flowmem.schema.history import HistoryEvent
from flowmem.testing.conformance import memory
from flowmem.vector_store.elasticsearch.store import ElasticsearchStore
from flowmem.vector_store.filters import MemoryFilter
from tests.integration.conftest import SCHEDULED_REFRESH_GONE, delete_store_indices

pytestmark = pytest.mark.elasticsearch

WS = "ws"


@pytest.fixture
def index(es_url: str) -> Iterator[str]:
    name = f"flowmem-test-refresh-{uuid.uuid4().hex[:10]}"
    yield name
    delete_store_indices(es_url, name)


async def _no_scheduled_refresh(store: ElasticsearchStore) -> None:
    """Make the store's indices exist, then switch their scheduled refresh off."""
    first = memory(WS, "first", 1, target="nobody")
    await store.write(WS, [first], history=[HistoryEvent.of("add", new=first)])
    client = store._new_client()
    try:
        names = [store.index, store.history_index]
        await client.indices.put_settings(index=names, settings={"index": {"refresh_interval": "-1"}})
        await asyncio.sleep(SCHEDULED_REFRESH_GONE)
    finally:
        await client.close()


async def _write_then_find(store: ElasticsearchStore, user: str, count: int, seed: int) -> tuple[int, int]:
    """Write ``count`` memories of ``user`` with their history; right after the write returns, how many
    of them a search (not a realtime get) finds, and how many history events."""
    memories = [memory(WS, f"{user}-{i}", seed + i, target=user) for i in range(count)]
    await store.write(WS, memories, history=[HistoryEvent.of("add", new=m) for m in memories])
    found = await store.count(WS, MemoryFilter(target=user))
    events = [e for e in await store.history(WS, limit=10_000) if e.memory_id.startswith(f"{user}-")]
    return found, len(events)


def test_a_write_running_beside_another_is_searchable_when_it_returns(es_url: str, index: str) -> None:
    # A long write (50 one-document bulk requests) is in flight while a short one runs and returns. Each
    # must have been refreshed when it returns: the short one may not count on the long one's refresh,
    # which comes later (before, it did, and returned unsearchable). Refreshes back to back (spacing 0): with
    # the default spacing the short write waits long enough for the long one to finish first.
    async def main() -> None:
        params = ElasticsearchStore.Params(hosts=es_url, index=index, bulk_chunk_size=1, refresh_spacing=0)
        store = ElasticsearchStore(params)
        try:
            await _no_scheduled_refresh(store)
            long = asyncio.ensure_future(_write_then_find(store, "long", 50, 100))
            await asyncio.sleep(0.05)  # the long write is under way
            short = await _write_then_find(store, "short", 1, 10)
            assert not long.done(), "the long write should still be running (make it longer)"
            assert short == (1, 1)
            assert await long == (50, 50)
        finally:
            await store.aclose()

    asyncio.run(main())


def test_concurrent_writers_share_refreshes_and_each_is_searchable(es_url: str, index: str) -> None:
    async def main() -> None:
        store = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index))
        try:
            await _no_scheduled_refresh(store)
            before = store._shared_refresh.requests
            results = await asyncio.gather(*(_write_then_find(store, f"u{i}", 1, 10 * i) for i in range(12)))
            assert results == [(1, 1)] * 12
            refreshes = store._shared_refresh.requests - before
            # 12 writers finishing close together: the first refreshes alone, the others join queued rounds
            assert 1 <= refreshes < 12, refreshes
        finally:
            await store.aclose()

    asyncio.run(main())


def test_a_write_beside_another_tasks_bulk_load_is_searchable_when_it_returns(es_url: str, index: str) -> None:
    # A bulk load (an import) defers its refresh to its end. That is the loading task's choice only: a write
    # of another task through the same store object (a server request) is still searchable on return
    # (before, a store-wide counter made it skip its refresh too).
    async def main() -> None:
        store = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index, bulk_chunk_size=1))
        try:
            await _no_scheduled_refresh(store)
            loading, loaded = asyncio.Event(), asyncio.Event()

            async def bulk() -> int:
                async with store.bulk_load():
                    await store.write(WS, [memory(WS, "bulk-a", 200, target="bulk")])
                    loading.set()
                    await loaded.wait()
                    await store.write(WS, [memory(WS, "bulk-b", 300, target="bulk")])
                    return await store.count(WS, MemoryFilter(target="bulk"))  # deferred: not searchable yet

            task = asyncio.ensure_future(bulk())
            await loading.wait()
            assert await _write_then_find(store, "request", 1, 10) == (1, 1)
            loaded.set()
            # bulk-a became visible with the request's refresh (a refresh covers the index); bulk-b waits for the end
            assert await task == 1
            assert await store.count(WS, MemoryFilter(target="bulk")) == 2  # searchable once the block ended
        finally:
            await store.aclose()

    asyncio.run(main())


def test_history_is_refreshed_by_its_readers_not_by_each_write(es_url: str, index: str) -> None:
    # Every change writes a history event and few requests read them: a write refreshes the memories
    # index only, and each history search (history, forget, another process's history) refreshes the
    # history index first, so it still sees every event acknowledged before it.
    async def main() -> None:
        store = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index))
        other = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index))  # another process
        client = store._new_client()
        try:
            await _no_scheduled_refresh(store)
            await store.history(WS, limit=10)  # the first write's event made searchable
            refreshed: list[list[str]] = []
            store._shared_refresh._refresh = _recording(store._shared_refresh._refresh, refreshed)
            late = memory(WS, "late", 7, target="ann")
            await store.write(WS, [late], history=[HistoryEvent.of("add", new=late)])
            assert refreshed == [[store.index]], "the write should refresh the memories index alone"
            unrefreshed = await client.count(index=store.history_index)
            assert unrefreshed["count"] == 1, "the write's event should not be searchable before a reader refreshes"
            assert [e.memory_id for e in await other.history(WS, "late", limit=10)] == ["late"]
            assert [e.memory_id for e in await store.history(WS, "late", limit=10)] == ["late"]
            again = memory(WS, "again", 8, target="ann")
            await store.write(WS, [again], history=[HistoryEvent.of("add", new=again)])
            counts = await other.forget(WS, "ann")
            assert counts["history"] == 2, counts  # the event written just before forget is erased too
            assert [e.memory_id for e in await store.history(WS, limit=10_000)] == ["first"]
        finally:
            await client.close()
            await store.aclose()
            await other.aclose()

    asyncio.run(main())


def _recording(
    refresh: Callable[[list[str]], Awaitable[None]], calls: list[list[str]]
) -> Callable[[list[str]], Awaitable[None]]:
    async def recorded(names: list[str]) -> None:
        calls.append(list(names))
        await refresh(names)

    return recorded
