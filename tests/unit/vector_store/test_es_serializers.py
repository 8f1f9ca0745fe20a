"""The Elasticsearch store's client encodes ``_msearch`` bodies (NDJSON) with orjson, as it does JSON ones.

The client's own NDJSON serializer uses the stdlib json even when given an orjson serializer for JSON: a time-scoped
recall is one ``_msearch`` of three kNN searches, each carrying the query vector's 384 floats.
"""

from __future__ import annotations

import asyncio
import time

import numpy as np
import pytest
from elasticsearch.serializer import NdjsonSerializer

from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

pytest.importorskip("orjson")


def msearch_body() -> list[dict[str, object]]:
    vector = np.random.default_rng(3).standard_normal(384).astype(np.float32)
    vector /= np.linalg.norm(vector)
    body: list[dict[str, object]] = []
    for k in (40, 10, 10):
        knn = {"field": "vector", "query_vector": vector.tolist(), "k": k, "num_candidates": 10 * k,
               "filter": [{"term": {"workspace_id": "ws"}}, {"terms": {"target": ["Zoë", "李雷"]}}]}  # fmt: skip
        body += [{"index": "memories"}, {"knn": knn, "size": k, "track_total_hits": False}]
    return body


def test_msearch_bodies_are_encoded_by_orjson_to_the_same_bytes() -> None:
    async def serializer() -> NdjsonSerializer:
        client = ElasticsearchStore()._new_client()
        try:
            found = client.transport.serializers.get_serializer("application/x-ndjson")
            assert isinstance(found, NdjsonSerializer)
            return found
        finally:
            await client.close()

    ndjson, stdlib = asyncio.run(serializer()), NdjsonSerializer()
    body = msearch_body()
    assert ndjson.dumps(body) == stdlib.dumps(body)  # what Elasticsearch reads is unchanged

    def seconds(serializer: NdjsonSerializer) -> float:
        started = time.process_time()
        for _ in range(50):
            serializer.dumps(body)
        return time.process_time() - started

    # ~45x on this machine; a loaded one moves both alike
    assert min(seconds(ndjson) for _ in range(3)) * 5 < min(seconds(stdlib) for _ in range(3))
