"""Round trips to Elasticsearch per request: a time-scoped recall is one ``_msearch``, not three searches.

Requests are counted from the client's own log (``elastic_transport.transport`` logs one line per request).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from flowmem.app import App
from tests.integration.conftest import ClientRequests, delete_store_indices

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
