"""The search's best rows (``index._best``) and BM25's kept posting arrays: the same answers as the plain ways."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from flowmem.vector_store import index as index_module
from flowmem.vector_store.index import _best
from flowmem.vector_store.lexical_text import K1, B, BM25Index, idf


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


def _plain_top(index: BM25Index, terms: list[str], top_k: int, keep: Callable[[str], bool]) -> list[tuple[str, float]]:
    """BM25Index.top as it was before its postings were kept as arrays: every slot scored, every run sorted by id."""
    count = len(index._slots)
    average = index._total_length / count or 1.0
    scores = np.zeros(len(index._ids), dtype=np.float64)
    for term in dict.fromkeys(terms):
        posting = index._postings.get(term)
        if not posting:
            continue
        slots = np.fromiter(posting.keys(), dtype=np.int64, count=len(posting))
        tf = np.fromiter(posting.values(), dtype=np.float64, count=len(posting))
        scores[slots] += idf(len(posting), count) * tf / (tf + K1 * (1.0 - B + B * index._lengths[slots] / average))
    hits = np.flatnonzero(scores)
    order = hits[np.argsort(-scores[hits])]
    picked: list[tuple[str, float]] = []
    for score in sorted({float(scores[i]) for i in order}, reverse=True):
        for memory_id in sorted(index._ids[i] for i in order if float(scores[i]) == score):
            if keep(memory_id) and len(picked) < top_k:
                picked.append((memory_id, score))
    return picked


def test_bm25_top_is_the_plain_ranking_through_puts_and_removes() -> None:
    rng = np.random.default_rng(11)
    words = ["tennis", "club", "night", "river", "lisbon", "dog", "cat", "work"]
    index = BM25Index()
    for step in range(400):
        memory_id = f"m{int(rng.integers(0, 60)):03d}"
        if rng.random() < 0.2:
            index.remove(memory_id)
        else:
            index.put(memory_id, " ".join(rng.choice(words, size=int(rng.integers(1, 6)))))
        if step % 10 == 0 and len(index):
            terms = list(rng.choice(words, size=int(rng.integers(1, 4))))
            top_k = int(rng.integers(1, 25))
            refused = {f"m{int(i):03d}" for i in rng.integers(0, 60, size=10)}

            def keep(memory_id: str, refused: set[str] = refused) -> bool:
                return memory_id not in refused

            assert index.top(terms, top_k, keep) == _plain_top(index, terms, top_k, keep), (step, terms)


@pytest.mark.parametrize("kept_share", [1.0, 0.5, 0.01, 0.0])
def test_bm25_top_orders_only_the_best_few_and_goes_deeper_when_keep_refuses_them(kept_share: float) -> None:
    """Thousands of memories share the query's words (ties by the hundred): the answer is the plain ranking's
    whether ``keep`` takes nearly every hit, half, one in a hundred (a user's memories in a workspace of many
    users: the best few are not enough, and the ranking goes deeper) or none."""
    rng = np.random.default_rng(29)
    words = ["tennis", "club", "night", "river", "lisbon", "dog", "cat", "work", "ann", "bob"]
    index = BM25Index()
    for i in range(3000):
        index.put(f"m{i:05d}", " ".join(rng.choice(words, size=int(rng.integers(1, 8)))))
    accepted = {f"m{i:05d}" for i in range(3000) if rng.random() < kept_share}
    for terms, top_k in ((["tennis"], 5), (["tennis", "club"], 20), (["dog", "cat", "work"], 1), (["river"], 300)):
        got = index.top(terms, top_k, accepted.__contains__)
        assert got == _plain_top(index, terms, top_k, accepted.__contains__), (terms, top_k)
        assert len(got) == min(top_k, len({i for i in accepted if set(terms) & set(index._terms[index._slots[i]])}))
