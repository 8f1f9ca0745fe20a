"""The search's best rows (``index._best``) and BM25's kept posting arrays: the same answers as the plain ways."""

from __future__ import annotations

import numpy as np
import pytest

from flowmem.vector_store import index as index_module
from flowmem.vector_store.index import _best
from flowmem.vector_store.lexical_text import BM25Index


def _plain(scores: np.ndarray, k: int) -> np.ndarray:
    """np.argpartition then a stable sort by score: what a search took before the sampled threshold."""
    best = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    return best[np.argsort(-scores[best], kind="stable")]


@pytest.mark.parametrize("kind", ["distinct", "ties", "ascending", "descending"])
def test_best_is_argpartition_then_a_stable_sort(kind: str) -> None:
    rng = np.random.default_rng(7)
    for _ in range(150):
        n, k = int(rng.integers(1, 30_000)), int(rng.integers(1, 120))
        scores = rng.standard_normal(n).astype(np.float32)
        if kind == "ties":  # equal scores among the best: left to argpartition, whose order of them stays
            scores = np.round(scores, 1)
        elif kind == "ascending":
            scores = np.sort(scores)
        elif kind == "descending":
            scores = np.sort(scores)[::-1].copy()
        k = min(k, n)
        assert np.array_equal(_best(scores, k), _plain(scores, k)), (kind, n, k)


def test_best_takes_the_sampled_threshold_on_a_large_array(monkeypatch: pytest.MonkeyPatch) -> None:
    scores = np.random.default_rng(3).standard_normal(20_000).astype(np.float32)
    calls: list[int] = []
    argpartition = np.argpartition

    def counted(*args: object, **kwargs: object) -> np.ndarray:
        calls.append(1)
        return argpartition(*args, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(index_module.np, "argpartition", counted)
    assert np.array_equal(_best(scores, 40), _plain(scores, 40))
    assert len(calls) == 1  # _plain's own: _best found the 40 above its threshold


def test_bm25_posting_arrays_follow_every_put_and_remove() -> None:
    kept, fresh = BM25Index(), BM25Index()
    kept.put("a", "tennis club")
    kept.put("b", "tennis tennis")
    assert kept.top(["tennis", "club"], 5)  # the arrays of both terms made and kept
    kept.put("c", "club night")
    kept.remove("a")
    kept.put("b", "tennis")
    for memory_id, text in (("b", "tennis"), ("c", "club night")):
        fresh.put(memory_id, text)
    for terms in (["tennis"], ["club"], ["tennis", "club"], ["night", "tennis"]):
        assert kept.top(terms, 5) == fresh.top(terms, 5)
    assert [i for i, _ in kept.top(["club"], 5)] == ["c"]
