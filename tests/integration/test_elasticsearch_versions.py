"""The Elasticsearch store across server versions (8.19 and 9.x, see scripts/test.sh): vector index options,
recall against the exact local store on the bundled sample, indices flowmem did not configure, vectors
that 9.2+ keeps out of ``_source``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flowmem.app import App
from flowmem.eval.samples import DEMO_WORKSPACE, load_memories
from flowmem.testing.conformance import memory
from flowmem.vector_store.elasticsearch import query as es_query
from flowmem.vector_store.elasticsearch.store import ElasticsearchStore
from flowmem.vector_store.local.store import LocalStore
from tests.integration.conftest import delete_store_indices

pytestmark = pytest.mark.elasticsearch

# Questions about the sample's Alice (and Sam), a spread of topics, English and Chinese.
QUESTIONS = [
    "what did I do last weekend?", "where do I live?", "what am I allergic to?", "上周末我做了什么？",
    "what's coming up next week?", "how is my knee?", "where do I work?", "who is my sister?",
    "what are my hobbies?", "what did the doctor say?", "when is my birthday?", "what do I like to eat?",
    "where did I travel this year?", "what books am I reading?", "how is Sam doing?", "what music do I like?",
    "what is my running routine?", "who are my friends?", "what happened at work in May?", "我住在哪里？",
    "what pets do I have?", "what am I learning?", "what are my plans for the summer?", "how did I sleep?",
]  # fmt: skip
K = 10
# What a new index gets by default, per index_options type (`stats()` reports the mapping's options).
OPTIONS: dict[str, dict[str, Any]] = {
    "hnsw": {"type": "hnsw", "m": 16, "ef_construction": 100},
    "int8_hnsw": {"type": "int8_hnsw", "m": 16, "ef_construction": 100},
    "bbq_hnsw": {"type": "bbq_hnsw", "m": 16, "ef_construction": 100},
}


@pytest.fixture
def index(es_url: str) -> Iterator[str]:
    name = f"flowmem-test-versions-{uuid.uuid4().hex[:10]}"
    yield name
    delete_store_indices(es_url, name)


@pytest.fixture(scope="module")
def sample() -> Iterator[tuple[list[Any], np.ndarray]]:
    """The bundled sample memories with their vectors, and the questions' vectors (the default embedding)."""
    with App() as app:
        model = app.embedding_model()
        memories = load_memories()
        vectors = app.run_coroutine(model.embed([m.content for m in memories], kind="document"))
        for m, vector in zip(memories, vectors, strict=True):
            m.vector = vector
        queries = np.stack([app.run_coroutine(model.embed_one(q, kind="query")) for q in QUESTIONS])
        yield memories, queries


async def _top_ids(store: Any, queries: np.ndarray) -> list[list[tuple[str, float]]]:
    found = []
    for query in queries:
        hits = await store.search(DEMO_WORKSPACE, query, K)
        found.append([(m.memory_id, m.scores["similarity"]) for m in hits])
    return found


@pytest.mark.parametrize("kind", list(OPTIONS))
def test_top_results_agree_with_the_exact_local_store_on_the_sample(
    es_url: str, index: str, tmp_path: Path, sample: tuple[list[Any], np.ndarray], kind: str
) -> None:
    memories, queries = sample

    async def case() -> tuple[list[list[tuple[str, float]]], list[list[tuple[str, float]]]]:
        local = LocalStore(LocalStore.Params(directory=str(tmp_path / "local")))
        es = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index, index_options=OPTIONS[kind]))
        try:
            for store in (local, es):
                async with store.bulk_load():
                    await store.upsert(DEMO_WORKSPACE, memories)
            assert (await es.stats())["index_options"]["type"] == kind
            return await _top_ids(local, queries), await _top_ids(es, queries)
        finally:
            await local.aclose()
            await es.aclose()

    exact, approximate = asyncio.run(case())
    hits = sum(len({i for i, _ in e} & {i for i, _ in a}) for e, a in zip(exact, approximate, strict=True))
    recall = hits / (K * len(QUESTIONS))
    print(f"recall@{K} of elasticsearch {kind} vs the exact local store, {len(QUESTIONS)} questions: {recall:.4f}")
    assert recall == 1.0
    for e, a in zip(exact, approximate, strict=True):
        # Same memories in the same order, with the same cosines: float vectors, or quantised ones rescored.
        assert [i for i, _ in a] == [i for i, _ in e]
        np.testing.assert_allclose([s for _, s in a], [s for _, s in e], atol=1e-4)


def test_an_index_without_explicit_index_options_opens_with_the_servers_default(es_url: str, index: str) -> None:
    # An index made by another tool (or by hand) with flowmem's mapping but no index_options: the server
    # picks them (384 dims: int8_hnsw on 8.x, bbq_hnsw on 9.1+), reports them in the mapping, and flowmem
    # searches it with a float rescore, so scores stay exact cosines.
    dims, rng = 384, np.random.default_rng(7)
    mapping = es_query.mappings(dims, "dot_product", {})
    del mapping["properties"][es_query.VECTOR_FIELD]["index_options"]
    vectors = rng.normal(size=(60, dims)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    memories = [memory("ws", f"m{i}", 0) for i in range(60)]
    for m, vector in zip(memories, vectors, strict=True):
        m.vector = vector
    query = vectors[3] + 0.3 * vectors[4]
    query /= np.linalg.norm(query)

    async def case() -> None:
        store = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index))
        try:
            client = store._new_client()
            try:
                await client.indices.create(index=index, mappings=mapping)
            finally:
                await client.close()
            await store.upsert("ws", memories)
            stats = await store.stats()
            version = tuple(int(part) for part in str(stats["server_version"]).split(".")[:2])
            assert stats["index_options"]["type"] == ("bbq_hnsw" if version >= (9, 1) else "int8_hnsw")
            found = await store.search("ws", query, 5)
            exact = sorted(((float(v @ query), f"m{i}") for i, v in enumerate(vectors)), reverse=True)[:5]
            assert [m.memory_id for m in found] == [i for _, i in exact]
            np.testing.assert_allclose([m.scores["similarity"] for m in found], [s for s, _ in exact], atol=1e-5)
            [got] = await store.get("ws", ["m3"], with_vectors=True)
            assert got.vector is not None
            np.testing.assert_allclose(got.vector, vectors[3], atol=1e-6)
        finally:
            await store.aclose()

    asyncio.run(case())


def test_vectors_come_back_from_an_index_that_keeps_them_out_of_source(es_url: str, index: str) -> None:
    # Indices created by 9.2+ exclude vectors from `_source` by default; get and iterate ask for them back.
    async def case() -> None:
        store = ElasticsearchStore(ElasticsearchStore.Params(hosts=es_url, index=index))
        try:
            memories = [memory("ws", f"m{i}", i) for i in range(3)]
            await store.upsert("ws", memories)
            version = tuple(int(part) for part in str((await store.stats())["server_version"]).split(".")[:2])
            assert store._vectors_excluded == (version >= (9, 2))
            got = await store.get("ws", ["m0", "m1", "m2"], with_vectors=True)
            iterated = [m async for batch in store.iterate("ws", batch_size=2, with_vectors=True) for m in batch]
            for found in (got, iterated):
                assert sorted(m.memory_id for m in found) == ["m0", "m1", "m2"]
                assert all(m.vector is not None and abs(float(np.linalg.norm(m.vector)) - 1) < 1e-5 for m in found)
            without = await store.get("ws", ["m0"])
            assert without[0].vector is None
        finally:
            await store.aclose()

    asyncio.run(case())
