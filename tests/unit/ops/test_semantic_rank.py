"""semantic_rank_op: the LLM path never loses or duplicates memories, whatever the reply."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flowmem.ops.semantic_rank_op import parse_scores

from tests.unit.ops.conftest import NOW, Maker, ids, mem, put, run


@pytest.mark.parametrize(
    ("reply", "scores", "note"),
    [
        ('{"0": 0.9, "1": 0.2, "2": 0.5}', {0: 0.9, 1: 0.2, 2: 0.5}, ""),
        ('```json\n{"0": 0.9, "1": 0.2, "2": 0.5}\n```', {0: 0.9, 1: 0.2, 2: 0.5}, ""),
        ('Sure! Here you go: {"scores": {"0": 1, "2": "0.3"}} Hope it helps.', {0: 1.0, 2: 0.3}, "1 memories unscored"),
        ("[0.1, 0.8, 0.4]", {0: 0.1, 1: 0.8, 2: 0.4}, ""),
        ('[{"index": 2, "score": 0.7}, {"index": 0, "relevance": 0.6}]', {2: 0.7, 0: 0.6}, "1 memories unscored"),
        ('{"0": 0.9, "7": 0.8, "-1": 0.5, "1": "high", "2": 4.0}', {0: 0.9}, "4 unusable entries, 2 memories unscored"),
        ('{"0": 1.03, "1": -0.02, "0.": 0.5, "2": 0.4,}', {0: 1.0, 1: 0.0, 2: 0.4}, "1 unusable entries"),
        ("I cannot rank these.", {}, "no JSON found"),
        ("", {}, "no JSON found"),
    ],
)
def test_parse_scores_is_tolerant(reply: str, scores: dict[int, float], note: str) -> None:
    assert parse_scores(reply, 3) == (scores, note)


MEMORIES = [mem(f"m{i}", f"memory number {i} about hiking trails") for i in range(6)]


@pytest.mark.parametrize(
    "reply",
    ['{"0": 0.1, "1": 0.9, "2": 0.2, "3": 0.8, "4": 0.3, "5": 0.7}', '{"1": 0.9, "9": 1.0}', "garbage", "[]"],
)
def test_llm_ranking_keeps_every_memory_once(make_app: Maker, reply: str) -> None:
    app = make_app(
        "op.semantic_rank_op.params.output_memory_max_count=4",
        "op.retrieve_memory_op.params.time_recall_k=0",
        llm={"replies": [reply], "by_prompt": {"find the date": "{}"}},
    )
    put(app, MEMORIES)
    response = run(app, "personal_retrieve", query="hiking trails", top_k=10)
    returned = ids(response)
    rank_span = next(s for s in response.trace.spans if s.op == "semantic_rank_op")
    dropped = [miss["memory_id"] for miss in rank_span.notes["dropped"]]
    assert sorted(returned + dropped) == sorted(m.memory_id for m in MEMORIES)  # none lost, none twice
    assert len(returned) == 4
    assert rank_span.notes["ranker"] == "llm"
    assert response.usage.llm_calls == 1  # the query has no time words: extract_time_op asked nothing
    if reply.startswith('{"0"'):
        # The LLM numbered the memories as the prompt listed them; its scores decide the order.
        prompt = app.backend("llm").calls[-1].messages[-1].content  # type: ignore[attr-defined]
        listed = [line.split(". ", 1)[1] for line in prompt.splitlines() if line[:1].isdigit()]
        by_score = sorted(range(6), key=lambda i: [0.1, 0.9, 0.2, 0.8, 0.3, 0.7][i], reverse=True)[:4]
        assert [m.content for m in response.memories] == [listed[i] for i in by_score]
        assert [m.scores["rank"] for m in response.memories] == [0.9, 0.8, 0.7, 0.3]
        assert response.warnings == []
    else:
        assert any("partly unusable" in w for w in response.warnings)


def test_llm_failure_degrades_to_recall_scores(make_app: Maker) -> None:
    app = make_app("op.semantic_rank_op.params.output_memory_max_count=2", llm={"fail": "LLM server down"})
    put(app, MEMORIES)
    response = run(app, query="hiking trails")
    assert len(response.memories) == 2
    assert any("semantic_rank_op: BackendUnavailableError: LLM server down" in w for w in response.warnings)
    assert all(m.scores["rank"] == pytest.approx(m.scores["recall"]) for m in response.memories)


def test_without_llm_recall_score_is_rank_score(make_app: Maker) -> None:
    app = make_app(
        "op.semantic_rank_op.params.output_memory_max_count=3", "op.semantic_rank_op.params.offline_scorer=recall"
    )
    put(app, MEMORIES)
    response = run(app, query="hiking trails")
    span = next(s for s in response.trace.spans if s.op == "semantic_rank_op")
    assert span.notes["ranker"] == "recall score (no LLM)"
    assert response.usage.llm_calls == 0
    assert all(m.score_sources["rank"] == "semantic_rank_op" for m in response.memories)
    assert all(m.scores["rank"] == pytest.approx(m.scores["recall"]) for m in response.memories)


def test_offline_lexical_blend_ignores_time_words(make_app: Maker) -> None:
    app = make_app("op.retrieve_memory_op.params.time_recall_k=0", "op.fuse_rerank_op.params.fuse_time_ratio=1")
    put(app, [mem("pasta", "Alice cooked pasta with fresh basil"), mem("weekend", "Alice loves a lazy weekend"),
              mem("other", "Alice bought a new bike")])  # fmt: skip
    response = run(app, query="the pasta with basil, last weekend?", top_k=3)
    span = next(s for s in response.trace.spans if s.op == "semantic_rank_op")
    assert span.notes["ranker"] == "recall blended with word overlap, weight 0.3 (no LLM)"
    by_id = {m.memory_id: m for m in response.memories}
    overlap = {k: (m.scores["rank"] - 0.7 * m.scores["recall"]) / 0.3 for k, m in by_id.items()}
    assert overlap["pasta"] == pytest.approx(1.0)  # "pasta" and "basil" — "last weekend" is not a word to match
    assert overlap["weekend"] == pytest.approx(0.0, abs=1e-6)  # shares only the time words, which are ignored
    assert response.memories[0].memory_id == "pasta"


@pytest.mark.parametrize(("overlap_text", "expected"), [("content", 0.0), ("document", 1.0)])
def test_offline_lexical_blend_reads_the_expanded_key(make_app: Maker, overlap_text: str, expected: float) -> None:
    app = make_app("op.retrieve_memory_op.params.time_recall_k=0", "op.fuse_rerank_op.params.fuse_time_ratio=1",
                   "op.fuse_rerank_op.params.fuse_score_threshold=-1",  # hash-embedding recalls can be low
                   f"op.semantic_rank_op.params.overlap_text={overlap_text}")  # fmt: skip
    put(app, [mem("flat", "We moved into a flat in Alfama", memory_type="conversation"),
              mem("bike", "Alice bought a new bike")])  # fmt: skip
    response = run(app, query="where do I live?", top_k=2)
    flat = next(m for m in response.memories if m.memory_id == "flat")
    # "live" is not in its words; its key says "lives in alfama; live; home" (the store built it on write).
    assert (flat.scores["rank"] - 0.7 * flat.scores["recall"]) / 0.3 == pytest.approx(expected, abs=1e-6)


def test_duplicate_contents_are_removed(make_app: Maker) -> None:
    app = make_app("op.semantic_rank_op.params.output_memory_max_count=1", "op.retrieve_memory_op.params.top_k=5")
    put(app, [mem("a", "Alice likes green tea"), mem("b", "alice likes  green tea"), mem("c", "Alice likes coffee")])
    response = run(app, query="what does alice like to drink", top_k=5)
    span = next(s for s in response.trace.spans if s.op == "retrieve_memory_op")
    assert [miss["reason"] for miss in span.notes["dropped"]] == ["duplicate content of a better-scored memory"]


@pytest.mark.parametrize("keep", [True, False])
def test_memories_recalled_for_the_named_time_are_not_cut_by_wording(make_app: Maker, keep: bool) -> None:
    # Fourteen memories worded like the query, none of last weekend; one of last weekend worded like none of it.
    app = make_app("op.semantic_rank_op.params.output_memory_max_count=3", "op.retrieve_memory_op.params.top_k=10",
                   "op.retrieve_memory_op.params.time_recall_k=10", "op.fuse_rerank_op.params.fuse_score_threshold=-1",
                   f"op.semantic_rank_op.params.keep_time_recalled={str(keep).lower()}")  # fmt: skip
    worded = [mem(f"h{i}", f"memory number {i} about hiking trails and what I did", said=NOW - timedelta(days=40))
              for i in range(14)]  # fmt: skip
    grandma = mem("grandma", "Sunday lunch at grandma's, she made braised tofu", said=NOW - timedelta(days=3))
    put(app, [*worded, grandma])
    response = run(app, query="what did I do on the hiking trails last weekend?", top_k=5)
    recall = next(s for s in response.trace.spans if s.op == "retrieve_memory_op")
    rank = next(s for s in response.trace.spans if s.op == "semantic_rank_op")
    ranked_out = [miss["memory_id"] for miss in rank.notes["dropped"]]
    assert recall.notes["time_recall"]["added"] == 1  # recall fetched it for its time, not its words
    if keep:
        assert "grandma" not in ranked_out and rank.notes["kept_for_time"] == 1
        kept = next(m for m in response.memories if m.memory_id == "grandma")  # the time match judges it, further down
        assert kept.scores["time_match"] == 1.0 and kept.scores["time_ratio"] > 1
        assert kept.scores["time_recall"] == 1.0 and kept.score_sources["time_recall"] == "retrieve_memory_op"
        assert kept.explain["time_recall"] == "said in 'last weekend'"
    else:
        assert "grandma" in ranked_out and "grandma" not in ids(response)  # the cut by wording lost it
