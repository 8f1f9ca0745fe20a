"""The Elasticsearch store against a real node: the conformance suite, plus what only this backend has.

One node per session (``es_url``), one index per test class (deleted by exact name at the end,
with the history and message indices named from it).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flowmem.core.errors import BackendUnavailableError, ConfigError, InputError
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.testing.conformance import DIMS, VectorStoreConformance, memory, unit
from flowmem.vector_store.base import DimensionMismatchError, VectorStore, normalise
from flowmem.vector_store.elasticsearch import query as es_query
from flowmem.vector_store.elasticsearch.store import BulkWriteError, ElasticsearchStore
from flowmem.vector_store.filters import SUBJECT_TYPES, UNREAD_SLOTS, MemoryFilter
from flowmem.vector_store.local.store import LocalStore
from tests.integration.conftest import SCHEDULED_REFRESH_GONE, delete_store_indices

pytestmark = pytest.mark.elasticsearch


def _index_name(kind: str) -> str:
    return f"flowmem-test-{kind}-{uuid.uuid4().hex[:10]}"


def _delete_indices(url: str, index: str) -> None:
    """Delete a store's indices: the memories index and the write path's two named from it."""
    delete_store_indices(url, index)


@pytest.fixture(scope="class")
def es_index(es_url: str) -> Iterator[str]:
    """A fresh index name for one test class; the index is deleted (by exact name) after the class."""
    name = _index_name("class")
    yield name
    _delete_indices(es_url, name)


def _store(url: str, index: str, **params: Any) -> ElasticsearchStore:
    return ElasticsearchStore(ElasticsearchStore.Params(hosts=url, index=index, **params))


def _run(url: str, index: str, case: Callable[[ElasticsearchStore], Awaitable[None]], **params: Any) -> None:
    async def main() -> None:
        store = _store(url, index, **params)
        try:
            await case(store)
        finally:
            await store.aclose()

    asyncio.run(main())


class TestElasticsearchStore(VectorStoreConformance):
    @pytest.fixture(autouse=True)
    def _node(self, es_url: str, es_index: str) -> None:
        self.es_url, self.es_index = es_url, es_index

    async def open_store(self) -> VectorStore:
        return _store(self.es_url, self.es_index)

    @contextmanager
    def request_sizes(self, store: VectorStore) -> Iterator[list[int]]:
        """The ``size`` of every search the store sends (alone or in an ``_msearch``) while the block runs."""
        assert isinstance(store, ElasticsearchStore) and store._client is not None
        client, sizes = store._client, []
        search, msearch = client.search, client.msearch

        def sized_search(**request: Any) -> Any:
            sizes.append(request.get("size", 10))
            return search(**request)

        def sized_msearch(**request: Any) -> Any:
            sizes.extend(body.get("size", 10) for body in request["searches"][1::2])
            return msearch(**request)

        client.search, client.msearch = sized_search, sized_msearch  # type: ignore[method-assign]
        try:
            yield sizes
        finally:
            del client.search, client.msearch
        assert sizes, "the store sent no search: the sizes prove nothing"


class TestElasticsearchSpecifics:
    @pytest.fixture(autouse=True)
    def _node(self, es_url: str, es_index: str) -> None:
        self.es_url, self.es_index = es_url, es_index

    def run(self, case: Callable[[ElasticsearchStore], Awaitable[None]], **params: Any) -> None:
        _run(self.es_url, self.es_index, case, **params)

    def test_every_field_round_trips(self) -> None:
        ws = f"ws-{uuid.uuid4().hex[:8]}"
        metadata = {
            "nested": {"deeper": {"list": [1, 2.5, "three", None, True, {"k": []}]}},
            "big": 2**53 + 1,
            "negative": -0.0001,
            "empty": {},
            "unicode": "émoji 🧠 中文",
            "mixed_list": [{"a": 1}, ["x", {"y": None}]],
        }
        rich = Memory(
            workspace_id=ws, memory_id="rich/id with spaces & ünïcode", target="bob", memory_type="obs_customized",
            when_to_use="when bob asks about climbing", content="Bob climbs at the Arco crag",
            keywords=["climbing", "arco"], created_at=datetime(2023, 12, 31, 23, 59, 58, 123456),
            updated_at=datetime(2024, 1, 2, 3, 4, 5), status="expired", source=["m-1"], metadata=metadata,
            vector=unit(11) * 3,
        ).with_message_time(datetime(2023, 12, 31, 23, 59)).with_event_time(
            datetime(2024, 2, 29, 7), start=datetime(2024, 2, 29, 7), end=datetime(2024, 3, 2, 18, 30)
        )  # fmt: skip
        sparse = Memory(workspace_id=ws, memory_id="sparse", content="", vector=unit(12))

        async def case(store: ElasticsearchStore) -> None:
            await store.upsert(ws, [rich, sparse])
            got = await store.get(ws, [rich.memory_id, "sparse"], with_vectors=True)
            assert [m.model_dump(exclude={"vector"}) for m in got] == [
                m.model_dump(exclude={"vector"}) for m in (rich, sparse)
            ]
            assert got[0].event_start == datetime(2024, 2, 29, 7) and got[1].event_start is None
            # the stored vector is the normalised float32 vector, bit for bit
            np.testing.assert_array_equal(got[0].vector, normalise(unit(11) * 3)[0])
            [(found)] = await store.search(ws, unit(11), 1, MemoryFilter(parts={"event_day": 29}, status="expired"))
            assert found.memory_id == rich.memory_id

        self.run(case)

    def test_scores_equal_the_local_store(self, tmp_path: Path) -> None:
        ws = f"ws-{uuid.uuid4().hex[:8]}"
        memories = [memory(ws, f"m{i}", 100 + i, memory_type=("insight", "conversation")[i % 2]) for i in range(60)]
        query = unit(1) + unit(2)

        async def case(store: ElasticsearchStore) -> None:
            local = LocalStore(LocalStore.Params(directory=str(tmp_path), synchronous="normal"))
            try:
                await local.upsert(ws, memories)
                await store.upsert(ws, memories)
                for flt in (None, MemoryFilter(memory_type="insight")):
                    ours = await store.search(ws, query, 10, flt)
                    theirs = await local.search(ws, query, 10, flt)
                    assert [m.memory_id for m in ours] == [m.memory_id for m in theirs]
                    np.testing.assert_allclose(
                        [m.scores["similarity"] for m in ours], [m.scores["similarity"] for m in theirs], atol=1e-5
                    )
            finally:
                await local.aclose()

        self.run(case)

    def test_partial_bulk_failure_names_the_failed_ids_and_keeps_the_rest(self) -> None:
        ws = f"ws-{uuid.uuid4().hex[:8]}"
        # Valid for flowmem, refused by Elasticsearch itself: Lucene indexes no term over 32 766 bytes,
        # and a keyword is one term.
        immense = "k" * 40_000
        batch = [memory(ws, "good-1", 1), memory(ws, "bad-keyword", 2, keywords=[immense]), memory(ws, "good-2", 3)]

        async def case(store: ElasticsearchStore) -> None:
            with pytest.raises(BulkWriteError) as caught:
                await store.upsert(ws, batch)
            error = caught.value
            assert set(error.failures) == {"bad-keyword"}
            assert error.succeeded == 2
            assert "bad-keyword" in str(error) and "immense term" in str(error)
            assert immense not in str(error)  # the reason is cut short, not the whole document
            assert error.exit_code == 1
            ids = ["good-1", "bad-keyword", "good-2"]
            assert [m.memory_id for m in await store.get(ws, ids)] == ["good-1", "good-2"]
            assert await store.count(ws) == 2

        self.run(case, bulk_chunk_size=2)  # the failure is in the first of two chunks

    def test_many_chunks_in_flight_are_all_searchable_after_upsert(self) -> None:
        ws = f"ws-{uuid.uuid4().hex[:8]}"
        batch = [memory(ws, f"c{i:03d}", i) for i in range(250)]

        async def case(store: ElasticsearchStore) -> None:
            await store.upsert(ws, batch)
            assert await store.count(ws) == 250  # refresh=wait_for on the last chunk covers every chunk
            [top] = await store.search(ws, unit(77), 1)
            assert top.memory_id == "c077"
            assert await store.delete(ws, [m.memory_id for m in batch[:120]] + ["missing"]) == 120
            assert await store.count(ws) == 130

        self.run(case, bulk_chunk_size=16, bulk_concurrency=4)

    def test_zero_vectors_are_refused_up_front(self) -> None:
        ws = f"ws-{uuid.uuid4().hex[:8]}"

        async def case(store: ElasticsearchStore) -> None:
            zero = Memory(workspace_id=ws, memory_id="zero", content="x", vector=np.zeros(DIMS))
            with pytest.raises(InputError, match="memory zero: has an all-zero vector"):
                await store.upsert(ws, [zero, memory(ws, "fine", 1)])
            assert await store.count(ws) == 0
            await store.upsert(ws, [memory(ws, "fine", 1)])
            with pytest.raises(InputError, match="all zeros"):
                await store.search(ws, np.zeros(DIMS), 3)

        self.run(case)

    def test_stats(self) -> None:
        ws = f"ws-{uuid.uuid4().hex[:8]}"

        async def case(store: ElasticsearchStore) -> None:
            await store.upsert(ws, [memory(ws, f"s{i}", i) for i in range(3)])
            stats = await store.stats()
            assert stats["backend"] == "elasticsearch"
            assert stats["url"] == self.es_url and stats["index"] == self.es_index
            assert str(stats["server_version"]).split(".")[0] in ("8", "9")
            assert stats["dims"] == DIMS and stats["similarity"] == "dot_product"
            assert stats["index_options"]["type"] == "hnsw"
            assert stats["workspaces"][ws] == 3
            await store.write(
                ws, history=[HistoryEvent.of("add", new=memory(ws, "s0", 0))], user_id="u", memorized=["a", "b"]
            )
            stats = await store.stats()
            assert stats["history_index"] == self.es_index + "-history" and stats["history_events"] >= 1
            assert stats["messages_index"] == self.es_index + "-messages" and stats["memorized_messages"] >= 2

        self.run(case)

    def test_history_round_trips_exactly_in_the_order_recorded(self) -> None:
        ws = f"ws-{uuid.uuid4().hex[:8]}"
        odd = {"big": 2**53 + 1, "nested": {"list": [1, 2.5, None, {"k": []}]}, "unicode": "émoji 🧠 中文", "empty": {}}
        first = memory(ws, "m", 1, metadata=odd, created_at=datetime(2024, 2, 29, 7, 0, 0, 123456))
        versions = [first.model_copy(update={"content": f"version {i}"}) for i in range(30)]
        # One write's events share a time to the second: seq must keep them in the order given.
        when = datetime(2024, 3, 1, 12)
        events = [HistoryEvent.of("add", new=first, time=when, reason="new")] + [
            HistoryEvent.of("update", old=old, new=new, time=when, flow_id="run-1")
            for old, new in zip([first, *versions], versions, strict=False)
        ]

        async def case(store: ElasticsearchStore) -> None:
            await store.record_history(ws, events)
            await store.record_history(ws, events[::-1])  # a rerun in another order: the first recording stands
            history = await store.history(ws, "m")
            assert [e.model_dump() for e in history] == [e.model_dump() for e in events]
            assert history[0].new == first.to_record()  # `old`/`new` are kept verbatim (enabled: false)
            latest = await store.history(ws, "m", limit=5)
            assert [e.event_id for e in latest] == [e.event_id for e in events[-5:]]
            assert await store.history(ws, "m", limit=0) == []
            # time orders first; seq only breaks ties
            earlier = HistoryEvent.of("delete", old=memory(ws, "m", 2), time=when - timedelta(days=1))
            await store.record_history(ws, [earlier])
            assert (await store.history(ws, limit=2))[0].event_id == events[-2].event_id
            assert (await store.history(ws))[0].event_id == earlier.event_id

        self.run(case)


class TestIndexLifecycle:
    """Each test makes its own index (dims differ), deleted by exact name."""

    @pytest.fixture
    def index(self, es_url: str) -> Iterator[str]:
        name = _index_name("own")
        yield name
        _delete_indices(es_url, name)

    def test_dims_mismatch_on_open_names_both_widths(self, es_url: str, index: str) -> None:
        async def create(store: ElasticsearchStore) -> None:
            assert (await store.stats())["dims"] == 16  # created on open, before any write

        _run(es_url, index, create, dims=16)

        async def reopen(store: ElasticsearchStore) -> None:
            with pytest.raises(DimensionMismatchError) as caught:
                await store.count("ws")
            assert "16" in str(caught.value) and "32" in str(caught.value) and index in str(caught.value)
            assert caught.value.exit_code == 2

        _run(es_url, index, reopen, dims=32)

        async def query(store: ElasticsearchStore) -> None:  # no dims configured: the index's own are used
            await store.upsert("ws", [memory("ws", "a", 1)])
            with pytest.raises(DimensionMismatchError, match=r"16.*32"):
                await store.search("ws", np.ones(32), 3)

        _run(es_url, index, query)

    def test_quantised_index_options_keep_exact_scores(self, es_url: str, index: str) -> None:
        ws = "ws"
        memories = [memory(ws, f"q{i}", i) for i in range(50)]
        query = unit(3) + 0.5 * unit(4)
        query = query / np.linalg.norm(query)

        async def case(store: ElasticsearchStore) -> None:
            await store.upsert(ws, memories)
            found = await store.search(ws, query, 5)
            expected = sorted(((float(unit(i) @ query), f"q{i}") for i in range(50)), reverse=True)[:5]
            assert [m.memory_id for m in found] == [i for _, i in expected]
            np.testing.assert_allclose([m.scores["similarity"] for m in found], [s for s, _ in expected], atol=1e-5)

        _run(es_url, index, case, index_options={"type": "int8_hnsw"}, similarity="cosine")

    def test_an_index_that_is_not_flowmems_is_refused(self, es_url: str, index: str) -> None:
        async def case(store: ElasticsearchStore) -> None:
            client = store._new_client()
            try:
                await client.indices.create(index=index, mappings={"properties": {"title": {"type": "text"}}})
            finally:
                await client.close()
            with pytest.raises(ConfigError, match="not a flowmem index"):
                await store.count("ws")

        _run(es_url, index, case)

    def test_an_index_from_before_the_write_path_gains_its_history_and_ledger_on_first_write(
        self, es_url: str, index: str
    ) -> None:
        ws = "ws"

        async def exists(store: ElasticsearchStore, name: str) -> bool:
            client = store._new_client()
            try:
                return bool(await client.indices.exists(index=name))
            finally:
                await client.close()

        async def before(store: ElasticsearchStore) -> None:  # what an older flowmem left: memories only
            await store.upsert(ws, [memory(ws, "old", 1)])
            assert not await exists(store, store.history_index) and not await exists(store, store.messages_index)

        _run(es_url, index, before, shards=2)

        async def after(store: ElasticsearchStore) -> None:
            # reads find nothing, and create nothing
            assert await store.history(ws) == [] and await store.memorized(ws, "u", ["msg-1"]) == set()
            assert not await exists(store, store.history_index) and not await exists(store, store.messages_index)
            new = memory(ws, "new", 2, source=["msg-1"])
            await store.write(ws, [new], history=[HistoryEvent.of("add", new=new)], user_id="u", memorized=["msg-1"])
            assert [e.memory_id for e in await store.history(ws)] == ["new"]
            assert await store.memorized(ws, "u", ["msg-1", "msg-2"]) == {"msg-1"}
            assert await store.count(ws) == 2
            client = store._new_client()
            try:
                for name in (store.history_index, store.messages_index):
                    mapping = (await client.indices.get_mapping(index=name))[name]["mappings"]
                    assert mapping["dynamic"] == "strict"
                    settings = (await client.indices.get_settings(index=name))[name]["settings"]["index"]
                    assert settings["number_of_shards"] == "2" and settings["number_of_replicas"] == "0"
            finally:
                await client.close()

        _run(es_url, index, after, shards=2)

    def test_an_index_from_before_lexical_search_gains_it_on_open(self, es_url: str, index: str) -> None:
        ws = "ws"
        old = [
            memory(ws, "home", 1, content="I moved to Lisbon", metadata={"slots": {"residence": "lisbon"}}),
            memory(ws, "city", 2, content="我住在北京"),
        ]

        async def before(store: ElasticsearchStore) -> None:  # what an older flowmem left: no lexical field or mark
            mapping = es_query.mappings(DIMS, "dot_product", {"type": "hnsw"})
            del mapping["properties"][es_query.LEXICAL_FIELD], mapping["_meta"]
            del mapping["properties"][es_query.SLOTS_FIELD]
            client = store._new_client()
            try:
                await client.indices.create(index=index, mappings=mapping)
                for m in old:
                    doc = es_query.to_doc(m, unit(1))
                    del doc[es_query.LEXICAL_FIELD], doc[es_query.SLOTS_FIELD]
                    doc[es_query.VECTOR_FIELD] = doc[es_query.VECTOR_FIELD].tolist()
                    await client.index(index=index, id=es_query.doc_id(ws, m.memory_id), document=doc, refresh=True)
            finally:
                await client.close()

        _run(es_url, index, before)

        async def after(store: ElasticsearchStore) -> None:
            assert [m.memory_id for m in await store.lexical_search(ws, "Where did I move? Lisbon", 5)] == ["home"]
            assert [m.memory_id for m in await store.lexical_search(ws, "我住在哪里", 5)] == ["city"]
            # and its slot index, from the slots kept in its metadata
            residence, unread = MemoryFilter(slots="residence"), MemoryFilter(slots=UNREAD_SLOTS)
            assert [m.memory_id for m in await store.search(ws, unit(1), 5, residence)] == ["home"]
            assert [m.memory_id for m in await store.search(ws, unit(1), 5, unread)] == ["city"]
            [got] = await store.get(ws, ["home"])
            assert got.model_dump(exclude={"vector", "scores"}) == old[0].model_dump(exclude={"vector", "scores"})
            client = store._new_client()
            try:
                mapping = (await client.indices.get_mapping(index=index))[index]["mappings"]
                assert mapping["_meta"] == {"flowmem_lexical": es_query.LEXICAL_VERSION}
                assert mapping["properties"][es_query.LEXICAL_FIELD]["analyzer"] == "whitespace"
            finally:
                await client.close()

        _run(es_url, index, after)

    def test_forget_finds_history_events_from_before_targets_were_indexed(self, es_url: str, index: str) -> None:
        ws = "ws"
        alice, bob = memory(ws, "a", 1, target="alice", content="alice's secret"), memory(ws, "b", 2, target="bob")
        old_events = [HistoryEvent.of("add", new=alice), HistoryEvent.of("add", new=bob)]

        async def before(store: ElasticsearchStore) -> None:  # a history index as an older flowmem left it
            client = store._new_client()
            try:
                props = {k: v for k, v in es_query.history_properties().items() if k != es_query.TARGET_FIELD}
                await client.indices.create(
                    index=store.history_index, mappings={"dynamic": "strict", "properties": props}
                )
                for seq, event in enumerate(old_events):
                    doc = {k: v for k, v in es_query.history_doc(event, seq).items() if k != es_query.TARGET_FIELD}
                    await client.index(index=store.history_index, id=es_query.doc_id(ws, event.event_id), document=doc)
                await client.indices.refresh(index=store.history_index)
            finally:
                await client.close()

        _run(es_url, index, before)

        async def after(store: ElasticsearchStore) -> None:
            await store.upsert(ws, [alice, bob])
            deleted = HistoryEvent.of("delete", old=alice)
            await store.write(ws, history=[deleted], deleted=["a"])  # a new event: the index gains `target`
            client = store._new_client()
            try:
                mapping = (await client.indices.get_mapping(index=store.history_index))[store.history_index]
                assert mapping["mappings"]["properties"][es_query.TARGET_FIELD] == {"type": "keyword"}
            finally:
                await client.close()
            assert await store.forget(ws, "alice") == {"memories": 0, "messages": 0, "history": 2, "sessions": 0}
            assert [(e.memory_id, e.event) for e in await store.history(ws)] == [("b", "add")]
            assert await store.count(ws) == 1

        _run(es_url, index, after)

    def test_a_bulk_load_end_refreshes_the_ledger_too_history_readers_refresh_it(self, es_url: str, index: str) -> None:
        ws = "ws"

        async def case(store: ElasticsearchStore) -> None:
            await store.write(ws, [memory(ws, "a", 1)], history=[HistoryEvent.of("add", new=memory(ws, "a", 1))])
            await store.write(ws, user_id="u", memorized=["msg-0"])  # all three indices exist now
            client = store._new_client()
            names = [index, store.history_index, store.messages_index]
            try:
                # No scheduled refresh: only the end of the bulk load can make the block's writes visible.
                await client.indices.put_settings(index=names, settings={"index": {"refresh_interval": "-1"}})
                await asyncio.sleep(SCHEDULED_REFRESH_GONE)
                b = memory(ws, "b", 2)
                async with store.bulk_load():
                    await store.write(
                        ws, [b], history=[HistoryEvent.of("add", new=b)], user_id="u", memorized=["msg-1"]
                    )
                    assert await store.count(ws) == 1
                    assert await store.memorized(ws, "u", ["msg-1"]) == set()
                    # The history is the exception: its readers refresh it (es_index.make_searchable).
                    assert len(await store.history(ws)) == 2
                assert await store.count(ws) == 2 and len(await store.history(ws)) == 2
                assert await store.memorized(ws, "u", ["msg-1"]) == {"msg-1"}
            finally:
                await client.close()

        _run(es_url, index, case)

    def test_a_bulk_load_of_many_memories_ends_with_the_index_merged(self, es_url: str, index: str) -> None:
        # es_index.merge_after_import: a load of at least merge_after_import memories leaves one segment (one HNSW
        # graph per kNN search instead of one per segment); a smaller load leaves the segments as they are.
        ws = "ws"

        async def segments(store: ElasticsearchStore) -> int:
            client = store._new_client()
            try:
                answer = await client.indices.segments(index=index)
            finally:
                await client.close()
            return sum(
                len(copy["segments"]) for copies in answer["indices"][index]["shards"].values() for copy in copies
            )

        async def case(store: ElasticsearchStore) -> None:
            async with store.bulk_load():
                for start in range(0, 40, 10):  # one refresh per upsert: a segment each
                    await store.upsert(ws, [memory(ws, f"a{i}", i) for i in range(start, start + 10)])
                    await store.refresh()
            assert await segments(store) == 1
            assert await store.count(ws) == 40
            async with store.bulk_load():  # fewer than merge_after_import: left to the node's own merging
                for start in range(40, 60, 10):
                    await store.upsert(ws, [memory(ws, f"a{i}", i) for i in range(start, start + 10)])
                    await store.refresh()
            assert await segments(store) == 3
            found = await store.search(ws, unit(7), 1)
            assert [m.memory_id for m in found] == ["a7"]

        _run(es_url, index, case, merge_after_import=30)

    def test_a_history_index_that_is_not_flowmems_is_refused(self, es_url: str, index: str) -> None:
        async def case(store: ElasticsearchStore) -> None:
            client = store._new_client()
            try:
                await client.indices.create(index=store.history_index, mappings={"properties": {"x": {"type": "text"}}})
            finally:
                await client.close()
            gone = HistoryEvent.of("delete", old=memory("ws", "gone", 1))
            with pytest.raises(ConfigError, match=f"'{store.history_index}'.*not a flowmem history index"):
                await store.record_history("ws", [gone])
            with pytest.raises(ConfigError, match="not a flowmem history index"):
                await store.history("ws")

        _run(es_url, index, case)


# -- through the CLI, as a user runs it ----------------------------------------------------------
def flowmem(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flowmem", *argv],
        capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=120, check=False,
    )  # fmt: skip


def es_config(path: Path, url: str, index: str) -> str:
    path.write_text(
        "vector_store:\n  default:\n    backend: elasticsearch\n"
        f"    params:\n      hosts: {url}\n      index: {index}\n"
    )
    return str(path)


def test_cli_unreachable_store_exits_2_with_one_line() -> None:
    port = _free_port()
    done = flowmem(
        "store", "stats",
        "vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts=http://127.0.0.1:{port}",
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"flowmem: error: cannot reach Elasticsearch at http://127.0.0.1:{port}: ")
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


class TestCommandLine:
    @pytest.fixture
    def index(self, es_url: str) -> Iterator[str]:
        name = _index_name("cli")
        yield name
        _delete_indices(es_url, name)

    def test_export_from_local_import_into_elasticsearch_same_top_results(
        self, es_url: str, index: str, tmp_path: Path
    ) -> None:
        config = es_config(tmp_path / "es.yaml", es_url, index)
        local = {"FLOWMEM_HOME": str(tmp_path / "home")}
        assert flowmem("store", "import", "--sample", "-w", "demo", env=local).returncode == 0
        exported = tmp_path / "demo.jsonl"
        done = flowmem("store", "export", "-w", "demo", "-o", str(exported), env=local)
        assert done.returncode == 0, done.stderr
        done = flowmem("store", "import", str(exported), "-w", "demo", "-c", config)
        assert done.returncode == 0 and "imported 94 into 'demo'" in done.stderr, done.stderr
        questions = ["what did I do last weekend?", "where do I live?", "what am I allergic to?", "上周末我做了什么？",
                     "what's coming up next week?", "how is my knee?"]  # fmt: skip
        for question in questions:
            query = ["run", "personal_retrieve", "-q", question, "-w", "demo", "-u", "alice", "--json",
                     "--input", "timestamp=2024-06-12T20:00"]  # fmt: skip
            on_es, on_local = flowmem(*query, "-c", config), flowmem(*query, env=local)
            assert on_es.returncode == 0 and on_local.returncode == 0, on_es.stderr + on_local.stderr
            es_ids = [m["memory_id"] for m in json.loads(on_es.stdout)["memories"]]
            local_ids = [m["memory_id"] for m in json.loads(on_local.stdout)["memories"]]
            assert es_ids and es_ids == local_ids, question
        stats = flowmem("store", "stats", "--json", "-c", config)
        assert stats.returncode == 0, stats.stderr
        assert json.loads(stats.stdout)["workspaces"] == {"demo": 94}
        assert json.loads(stats.stdout)["server_version"].startswith(("8.", "9."))


# -- no server needed ---------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_unreachable_node_is_backend_unavailable_and_fails_fast() -> None:
    port = _free_port()

    async def case(store: ElasticsearchStore) -> None:
        started = time.monotonic()
        with pytest.raises(BackendUnavailableError) as caught:
            await store.count("ws")
        assert f"cannot reach Elasticsearch at http://127.0.0.1:{port}: " in str(caught.value)
        assert time.monotonic() - started < 2.0
        with pytest.raises(BackendUnavailableError):  # and again on the next call, not a half-open store
            await store.search("ws", unit(1), 3)

    _run(f"http://127.0.0.1:{port}", "flowmem-unused", case)
    assert BackendUnavailableError.exit_code == 2


def test_credentials_never_appear_in_messages() -> None:
    port = _free_port()

    async def case(store: ElasticsearchStore) -> None:
        with pytest.raises(BackendUnavailableError) as caught:
            await store.count("ws")
        assert "s3cret" not in str(caught.value) and f"http://***@127.0.0.1:{port}" in str(caught.value)

    _run(f"http://elastic:s3cret@127.0.0.1:{port}", "flowmem-unused", case)


def test_params_are_checked() -> None:
    params = ElasticsearchStore.Params(hosts="http://a:9200, https://b:9243", refresh=True)  # type: ignore[arg-type]
    assert params.hosts == ["http://a:9200", "https://b:9243"] and params.refresh == "true"
    bad_params: list[tuple[dict[str, Any], str]] = [
        ({"hosts": "localhost:9200"}, "is not a URL like"),
        ({"username": "u"}, "needs both username and password"),
        ({"dims": 5000}, "less than or equal to 4096"),
        ({"similarity": "l1"}, "dot_product"),
    ]
    for bad, message in bad_params:
        with pytest.raises(ValueError, match=message):
            ElasticsearchStore.Params(**bad)


def test_mapping_covers_every_stored_memory_field() -> None:
    mapped = set(es_query.properties(DIMS, "dot_product", {"type": "hnsw"}))
    stored = {
        *Memory(workspace_id="w", content="x").to_record(),
        es_query.VECTOR_FIELD, es_query.DERIVED_FIELD, es_query.SLOTS_FIELD, es_query.LEXICAL_FIELD,
    }  # fmt: skip
    assert mapped == stored
    # and every subject a filter condition can test has a field (the store base refuses any other)
    assert set(es_query.FILTER_FIELDS) == set(SUBJECT_TYPES) >= {s.subject for s in MemoryFilter.FIELDS.values()}
    assert ElasticsearchStore.filter_subjects == set(SUBJECT_TYPES)


def test_history_and_ledger_mappings_cover_every_stored_field() -> None:
    event = HistoryEvent.of("add", new=Memory(workspace_id="w", content="x"))
    assert set(es_query.history_properties()) == set(es_query.history_doc(event, 1))
    assert set(es_query.history_properties()) == {*HistoryEvent.model_fields, es_query.SEQ_FIELD, "target"}
    assert set(es_query.messages_properties()) == set(es_query.message_doc("w", "u", "m", datetime(2024, 1, 1)))


def test_tenant_ids_cannot_collide() -> None:
    assert es_query.doc_id("a", "b\x00c") != es_query.doc_id("a\x00b", "c")
    assert es_query.doc_id("ws1", "m") != es_query.doc_id("ws2", "m")
    assert len(es_query.doc_id("w" * 1000, "m" * 1000)) == 64


def test_missing_client_gives_the_install_hint() -> None:
    code = (
        "import sys; sys.modules['elasticsearch'] = None\n"
        "from flowmem.core.errors import BackendUnavailableError\n"
        "from flowmem.vector_store.elasticsearch import ElasticsearchStore\n"  # imports fine without the client
        "try:\n    ElasticsearchStore()\nexcept BackendUnavailableError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'elasticsearch[async]>=8.19,<10'" in done.stdout


# -- the write path on Elasticsearch (the same behaviours as on the embedded store) --------------
class TestWritePath:
    @pytest.fixture
    def es_app(self, es_url: str) -> Iterator[Any]:
        from flowmem import App

        name = _index_name("write")
        overrides = ["vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts={es_url}",
                     f"vector_store.default.params.index={name}"]  # fmt: skip
        app = App(overrides=overrides)
        yield app
        app.close()
        delete_store_indices(es_url, name)

    def test_sample_chat_twice_dedup_and_expire_with_history(self, es_app: Any) -> None:
        from flowmem.eval.samples import load_messages
        from tests.unit.ops.test_write_path import SAMPLE_EXPIRED, all_memories

        messages = load_messages()
        for start in range(0, len(messages), 50):
            es_app.run_sync(
                "personal_summary", messages=messages[start : start + 50], user_id="alice", workspace_id="w"
            )
        store = es_app.vector_store()
        memories = all_memories(es_app)
        assert len(memories) > 40 and all(m.msg_year == 2024 for m in memories)
        expired = [m for m in memories if m.status == "expired"]
        # the same as on the local store (tests/unit/ops/test_write_path.py)
        assert {m.content.split(",")[0] for m in expired} == SAMPLE_EXPIRED
        history = es_app.run_coroutine(store.history("w", expired[0].memory_id))
        assert [e.event for e in history] == ["add", "expire"]
        assert es_app.run_coroutine(store.memorized("w", "alice", [m.message_id for m in messages])) == {
            m.message_id for m in messages
        }
        again = es_app.run_sync("personal_summary", messages=messages[:50], user_id="alice", workspace_id="w")
        assert "added 0" in again.answer  # the same messages again: nothing new
        assert len(all_memories(es_app)) == len(memories)

    def test_two_turns_that_sound_alike_stay_two_records(self, es_app: Any) -> None:
        # as on the local store (tests/unit/ops/test_write_path.py): turns that state no fact in common are not merged
        # (0c6636c), and the same words again join the memory that holds them
        from tests.unit.ops.test_write_path import T0, all_memories, message, summarize

        summarize(es_app, [message("a", "I love hiking, it's my favourite way to spend a weekend.", T0)])
        summarize(es_app, [message("b", "Hiking is honestly my favourite thing.", T0 + timedelta(days=9))])
        summarize(es_app, [message("c", "Hiking is honestly my favourite thing.", T0 + timedelta(days=10))])
        memories = {m.source[0]: m for m in all_memories(es_app)}
        assert memories["a"].content == "I love hiking, it's my favourite way to spend a weekend."
        assert memories["b"].content == "Hiking is honestly my favourite thing." and memories["b"].source == ["b", "c"]

    def test_killed_ingest_then_rerun_loses_nothing_and_duplicates_nothing(self, es_url: str) -> None:
        import signal

        from flowmem import App
        from flowmem.eval.samples import chat_path
        from tests.unit.ops.test_write_path import all_memories

        names = [_index_name("killed"), _index_name("clean")]

        def on_es(index: str) -> list[str]:
            return ["vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts={es_url}",
                    f"vector_store.default.params.index={index}"]  # fmt: skip

        def ingest(index: str) -> subprocess.Popen[str]:
            argv = [sys.executable, "-m", "flowmem", "ingest", str(chat_path()), "-u", "alice", "-w", "demo",
                    "--batch", "10", *on_es(index)]  # fmt: skip
            return subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)

        try:
            writer = ingest(names[0])
            assert writer.stderr is not None
            for _ in range(6):
                writer.stderr.readline()
            os.kill(writer.pid, signal.SIGKILL)
            writer.wait(timeout=60)
            for name in names:
                finished = ingest(name)
                _, err = finished.communicate(timeout=600)
                assert finished.returncode == 0, err
            states = []
            for name in names:
                with App(overrides=on_es(name)) as app:
                    states.append(sorted((m.memory_id, m.status, m.content) for m in all_memories(app, "demo")))
            assert states[0] == states[1] and len(states[1]) > 40
        finally:
            for name in names:
                delete_store_indices(es_url, name)
