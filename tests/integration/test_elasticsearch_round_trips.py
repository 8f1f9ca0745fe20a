"""Round trips to Elasticsearch per request: a time-scoped recall is one ``_msearch``, not three searches, and the
searches issued at the same moment (concurrent queries, a flow's branches) are one ``_msearch`` (es_batching).

Requests are counted from the client's own log (``elastic_transport.transport`` logs one line per request).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flowmem.app import App
from flowmem.testing.store_harness import memory, unit
from flowmem.vector_store.elasticsearch.errors import ElasticsearchError
from flowmem.vector_store.elasticsearch.store import ElasticsearchStore
from flowmem.vector_store.filters import MemoryFilter
from tests.integration.conftest import ClientRequests, delete_store_indices
from tests.integration.test_elasticsearch_intents import es_overrides

pytestmark = pytest.mark.elasticsearch


@pytest.fixture
def index(es_url: str) -> Iterator[str]:
    name = f"flowmem-test-trips-{uuid.uuid4().hex[:10]}"
    yield name
    delete_store_indices(es_url, name)


def test_a_time_scoped_search_is_one_msearch(es_url: str, index: str, requests: ClientRequests, tmp_path: Path) -> None:
    overrides = [
        "vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts={es_url}",
        f"vector_store.default.params.index={index}", "embedding_model.default.backend=hash",
        # retrieve_memory_op's own requests: the shipped flow also recalls by words and reads neighbour turns,
        # each a request of its own, which this test does not count.
        "flow.personal_retrieve.flow_content=set_query_op >> (extract_time_op | retrieve_memory_op) >> fuse_rerank_op",
    ]  # fmt: skip
    now = datetime(2024, 5, 13, 12)

    async def main() -> None:
        async with App(overrides=overrides) as app:
            await app.memories.add(text="I went sailing with Ann", user_id="u", timestamp=datetime(2024, 5, 11, 10))
            await app.memories.add(text="I play the cello", user_id="u", timestamp=datetime(2024, 4, 2, 10))
            requests.lines.clear()
            timed = await app.memories.search("what did I do last weekend?", user_id="u", timestamp=now)
            timed_requests = list(requests.lines)
            requests.lines.clear()
            plain = await app.memories.search("what instrument do I play?", user_id="u", timestamp=now)
            plain_requests = list(requests.lines)
        # the recall and the two time recalls (said then, happening then) in one request
        assert [line.split(" ")[1].split("?")[0].rsplit("/", 1)[-1] for line in timed_requests] == ["_msearch"]
        assert '"time_recall": {"expression": "last weekend"' in json.dumps(timed.response.to_dict(trace=True))
        assert [line.split(" ")[1].split("?")[0].rsplit("/", 1)[-1] for line in plain_requests] == ["_search"]
        assert plain.memories

    asyncio.run(main())


def test_reads_around_several_places_are_one_msearch(es_url: str, index: str, requests: ClientRequests) -> None:
    # neighbour_context_op reads around each of a query's best hits: one request for all of them, not one each
    overrides = [
        "vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts={es_url}",
        f"vector_store.default.params.index={index}", "embedding_model.default.backend=hash",
    ]  # fmt: skip

    async def main() -> None:
        async with App(overrides=overrides) as app:
            store = app.vector_store()
            for day in (1, 2, 3):
                for hour in range(10, 15):
                    text = f"turn {hour} of day {day}"
                    await app.memories.add(text=text, user_id="u", timestamp=datetime(2024, 5, day, hour))
            turns = [m async for batch in store.iterate("default") for m in batch]
            places = [(m.created_at, m.memory_id, None) for m in turns[2::5]]  # the middle turn of each day
            alone = [await store.adjacent("default", at, i, before=2, after=1) for at, i, _ in places]
            requests.lines.clear()
            together = await store.adjacent_many("default", places, before=2, after=1)
            sent = list(requests.lines)
        assert [line.split(" ")[1].split("?")[0].rsplit("/", 1)[-1] for line in sent] == ["_msearch"]
        ids = [([m.memory_id for m in before], [m.memory_id for m in after]) for before, after in together]
        assert ids == [([m.memory_id for m in before], [m.memory_id for m in after]) for before, after in alone]
        assert all(len(before) == 2 and len(after) == 1 for before, after in ids)

    asyncio.run(main())


def test_turns_around_several_places_are_one_msearch_when_each_turn_is_one_memory(
    es_url: str, index: str, requests: ClientRequests
) -> None:
    # neighbour_context_op reads turns around each of a query's best hits: a page of the turns wanted plus one per
    # side, every side in one request; a turn of several memories (a message split into facts) takes one page more.
    overrides = [
        "vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts={es_url}",
        f"vector_store.default.params.index={index}", "embedding_model.default.backend=hash",
    ]  # fmt: skip

    async def main() -> list[list[str]]:
        async with App(overrides=overrides) as app:
            store = app.vector_store()
            for hour in range(10, 17):
                text = f"turn {hour} of the day"
                await app.memories.add(text=text, user_id="u", timestamp=datetime(2024, 5, 1, hour))
            turns = [m async for batch in store.iterate("default", with_vectors=True) for m in batch]
            places = [(m.created_at, m.memory_id, m.source, None) for m in turns[2:5]]
            requests.lines.clear()
            found = await store.turns_around("default", places, before=2, after=2)
            sent = [line.split(" ")[1].split("?")[0].rsplit("/", 1)[-1] for line in requests.lines]
            assert [[len(turn) for turn in side] for sides in found for side in sides] == [[1, 1]] * 6
            # Split into facts: each of the hit's neighbours is two memories of one message, said at one time.
            said = [m.model_copy(update={"source": [f"said-{k}"]}) for k, m in enumerate(turns)]
            facts = [m.model_copy(update={"memory_id": f"{m.memory_id}-fact"}) for m in said]
            await store.upsert("default", said + facts)
            places = [(m.created_at, m.memory_id, m.source, None) for m in said[2:5]]
            requests.lines.clear()
            [(earlier, later)] = await store.turns_around("default", places[1:2], before=2, after=2)
            sent_again = [line.split(" ")[1].split("?")[0].rsplit("/", 1)[-1] for line in requests.lines]
            assert [[len(turn) for turn in side] for side in (earlier, later)] == [[2, 2], [2, 2]]
        return [sent, sent_again]

    sent, sent_again = asyncio.run(main())
    assert sent == ["_msearch"]
    assert sent_again == ["_msearch", "_msearch"]


def _searches(store: ElasticsearchStore, vectors: list[np.ndarray]) -> list[Awaitable[Any]]:
    """A query's reads of several kinds (kNN, one filtered, several with one vector, words, similarities), as
    concurrent queries of a service issue them."""
    typed = MemoryFilter(memory_type=["observation"])
    return [
        store.search("w", vectors[0], 5),
        store.search("w", vectors[1], 3, typed),
        store.search_many("w", vectors[2], [(4, None), (2, typed)]),
        store.lexical_search("w", "cello lessons", 5),
        store.similarities("w", vectors[3], ["m1", "m4", "m7", "gone"]),
    ]


def _shown(found: Any) -> Any:
    """Ids and scores of a read's answer, whatever its shape."""
    if isinstance(found, dict):
        return sorted(found.items())
    if found and isinstance(found[0], list):
        return [_shown(one) for one in found]
    return [(m.memory_id, m.scores) for m in found]


def test_searches_of_the_same_moment_are_one_msearch_with_the_answers_of_each_alone(
    es_url: str, index: str, requests: ClientRequests
) -> None:
    async def main() -> None:
        store = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index))
        try:
            kinds = ["observation", "conversation"]
            texts = ["cello lessons on Monday", "my sister Ann", "a cat named Miso", "sailing in Kyoto"]
            await store.upsert("w", [
                memory("w", f"m{i}", i, content=f"{texts[i % 4]} ({i})", memory_type=kinds[i % 2]) for i in range(12)
            ])  # fmt: skip
            vectors = [unit(100 + i) for i in range(4)]
            alone = [await read for read in _searches(store, vectors)]
            requests.lines.clear()
            together = await asyncio.gather(*_searches(store, vectors))
            sent = [line.split(" ")[1].split("?")[0].rsplit("/", 1)[-1] for line in requests.lines]
            assert sent == ["_msearch"]
            assert [_shown(found) for found in together] == [_shown(found) for found in alone]
            assert all(_shown(found) for found in alone), "every read found something: the comparison is not empty"
        finally:
            await store.aclose()

    asyncio.run(main())


def test_a_search_refused_in_an_msearch_fails_only_its_own_caller(es_url: str, index: str) -> None:
    async def main() -> None:
        store = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index))
        try:
            await store.upsert("w", [memory("w", f"m{i}", i) for i in range(4)])
            refused = {"query": {"range": {"created_at": {"gte": "not a date"}}}, "size": 1}
            sent_before = store._searches.requests
            good, bad, good_words = await asyncio.gather(
                store.search("w", unit(7), 2),
                store._searches.search(store.index, refused),
                store.lexical_search("w", "memory", 2),
                return_exceptions=True,
            )
            assert store._searches.requests == sent_before + 1  # the three went together
            assert isinstance(bad, ElasticsearchError) and "answered 400" in str(bad) and index in str(bad)
            assert isinstance(good, list) and len(good) == 2
            assert isinstance(good_words, list) and len(good_words) == 2
            # alone, the same search fails with the same error
            with pytest.raises(ElasticsearchError, match="answered 400"):
                await store._searches.search(store.index, refused)
        finally:
            await store.aclose()

    asyncio.run(main())


def test_an_add_is_eight_requests_its_memory_and_event_one_bulk(
    es_url: str, index: str, requests: ClientRequests
) -> None:
    """A text add through the service (personal_add, fenced): the fence, the new memory's id looked up, its kNN
    search, the write intent, the fence checked again, the memory with its history event as one ``_bulk``, the
    refresh, and the intent removed on the condition nobody marked it (which is the second check: es_guard)."""

    async def main() -> None:
        app = App(overrides=es_overrides(es_url, index))
        try:
            mem = app.memories
            await mem.add(text="I play the cello", user_id="u1")  # creates the indices
            requests.lines.clear()
            added = await mem.add(text="I sail in Kyoto", user_id="u1")
            sent = list(requests.lines)
            [memory] = await mem.get_many(added.memory_ids)
            events = [event.event for event in await mem.history(memory.memory_id)]
        finally:
            await app.aclose()
        # METHOD http://host/index/_route[/id]?query [status:N ...]: the method and the route
        routes = [
            next(p for p in reversed(line.split(" ")[1].split("?")[0].split("/")) if p[:1] == "_") for line in sent
        ]
        kinds = [f"{line.split(' ')[0]} {route}" for line, route in zip(sent, routes, strict=True)]
        assert kinds == [
            "POST _mget", "POST _mget", "POST _search", "PUT _doc", "POST _mget", "PUT _bulk", "POST _refresh",
            "DELETE _doc",
        ], sent  # fmt: skip
        assert "if_seq_no=" in sent[-1] and "status:200" in sent[-1], sent[-1]  # removed as recorded: not marked
        assert memory.content == "I sail in Kyoto" and events == ["add"]

    asyncio.run(main())
