"""Opening the Elasticsearch store's indices (es_index.open_index): processes creating one index at once.

Several store objects (as several processes would) open a new index together: each finds it
missing and tries to create it; one wins, the others get ``resource_already_exists_exception``
and must then check what the winner made, as they would an index found on open — the same
sequence for the memories index and the side indices.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest
from loguru import logger

from flowmem.vector_store.elasticsearch import query as es_query
from flowmem.vector_store.elasticsearch.store import ElasticsearchStore
from tests.integration.conftest import ClientRequests, delete_store_indices

pytestmark = pytest.mark.elasticsearch

STORES = 4


@pytest.fixture
def index(es_url: str) -> Iterator[str]:
    name = f"flowmem-test-open-{uuid.uuid4().hex[:10]}"
    yield name
    delete_store_indices(es_url, name)


def test_stores_creating_one_index_at_once_all_open_what_the_winner_made(
    es_url: str, index: str, requests: ClientRequests
) -> None:
    created: list[str] = []
    sink = logger.add(lambda message: created.append(message.record["message"]), filter="flowmem", level="INFO")
    logger.enable("flowmem")

    async def main() -> None:
        stores = [
            ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index, dims=16)) for _ in range(STORES)
        ]
        try:
            await asyncio.gather(*(store._ready() for store in stores))  # the memories index: created on open
            assert [(s._exists, s._width, s._index_options.get("type")) for s in stores] == [(True, 16, "hnsw")] * 4
            # read back from the server, which fills in the graph's parameters, by winners and losers alike
            assert all("m" in s._index_options for s in stores)
            sides = await asyncio.gather(*(store._has_side(store._events, create=True) for store in stores))
            assert sides == [True] * STORES and all(store._events.exists for store in stores)
        finally:
            await asyncio.gather(*(store.aclose() for store in stores))

    try:
        asyncio.run(main())
    finally:
        logger.remove(sink)
        logger.disable("flowmem")
    made = [line for line in created if " created " in line]
    assert made == [
        f"vector_store 'default': created index '{index}' (16 dims)",
        f"vector_store 'default': created history index '{index}{es_query.HISTORY_SUFFIX}'",
    ]
    # A store that found an index missing tried to create it; all but the winner were refused (400). Usually every
    # store's read comes before the winner's creation (4 × 2 - 2 refusals), but a slow store may read after it and
    # simply find the index: at least one refusal shows the race was run, at most one per loser per index.
    refused = [line for line in requests.lines if line.startswith("PUT") and "[status:400" in line]
    assert 1 <= len(refused) <= 2 * (STORES - 1), requests.lines
