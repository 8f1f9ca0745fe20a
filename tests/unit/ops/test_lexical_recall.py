"""lexical_recall_op and recall_fuse_op: word recall beside vector recall, fused with every contribution kept."""

from __future__ import annotations

from typing import Any

import pytest

from flowmem import App
from flowmem.cli.explain import explain
from flowmem.core.errors import FlowmemError
from tests.unit.ops.conftest import Maker, ids, mem, put, run

HYBRID = (
    "set_query_op >> (extract_time_op | ((retrieve_memory_op | lexical_recall_op) >> recall_fuse_op"
    " >> semantic_rank_op)) >> fuse_rerank_op"
)
MEMORIES = [
    mem("pottery", "Caroline took a pottery class at the Riverside studio", memory_type="conversation"),
    mem("beach", "We went to the beach last summer with the kids", memory_type="conversation"),
    mem("zh", "我在北京的一家银行工作", memory_type="observation"),
    mem("old", "Caroline took a pottery class years ago", memory_type="conversation", status="expired"),
    mem("bob", "Bob took a pottery class too", target="bob"),
    mem("x-dup", "Caroline took a pottery class at the Riverside studio!", memory_type="conversation"),
    mem("class", "A yoga class on Mondays", memory_type="conversation"),
]


def _app(make_app: Maker, flow: str, *overrides: str) -> App:
    app: App = make_app(f"flow.t.flow_content={flow}", "flow.t.outputs=[lexical_memories]", *overrides)
    put(app, MEMORIES)
    return app


def _lexical(app: App, query: str) -> list[Any]:
    return list(run(app, "t", query=query).outputs["lexical_memories"])


def test_lexical_recall_finds_the_users_valid_memories_by_their_words(make_app: Maker) -> None:
    app = _app(make_app, "set_query_op >> lexical_recall_op")
    found = _lexical(app, "Which pottery class did Caroline take last weekend?")
    assert [m.memory_id for m in found] == ["pottery", "class"]  # bob's, the expired one and the duplicate are not
    assert [m.scores["lexical_rank"] for m in found] == [1.0, 2.0]
    assert found[0].scores["lexical"] > found[1].scores["lexical"] > 0
    assert found[0].score_sources["lexical"] == "lexical_recall_op"
    assert [m.memory_id for m in _lexical(app, "我在哪里工作？")] == ["zh"]
    assert _lexical(app, "what is it?") == []  # stop words only: nothing to match


def test_expired_memories_only_when_asked_and_time_words_are_left_out(make_app: Maker) -> None:
    app = _app(make_app, "set_query_op >> lexical_recall_op", "op.lexical_recall_op.params.include_expired=true")
    assert "old" in [m.memory_id for m in _lexical(app, "pottery class")]
    # "last summer" is a time expression: left to the time boost, so "beach" is not recalled by "last" or "summer"
    assert _lexical(app, "what did I do last summer?") == []


def test_recall_fuse_keeps_both_contributions_and_finds_word_only_memories(make_app: Maker) -> None:
    app = _app(make_app, HYBRID, "op.fuse_rerank_op.params.output_memory_max_count=10")
    response = run(app, "t", query="Riverside pottery studio")
    by_id = {m.memory_id: m for m in response.memories}
    top = by_id["pottery"]
    for name in ("cosine", "vector_rank", "lexical", "lexical_rank", "fused", "recall"):
        assert name in top.scores, name
    assert top.scores["recall"] == top.scores["fused"] and top.score_sources["fused"] == "recall_fuse_op"
    assert 0 < top.scores["fused"] <= 1.0
    text = explain(response)
    assert "recall fusion: union of" in text
    block = text[text.index("id pottery") :]
    order = [
        block.index(f"   {name} ") for name in ("cosine", "vector_rank", "lexical", "lexical_rank", "fused", "recall")
    ]
    assert order == sorted(order)  # in the order the flow produced them
    assert "by recall_fuse_op" in block and "by lexical_recall_op" in block


def test_union_keeps_the_cosine_as_base_and_adds_word_only_memories(make_app: Maker) -> None:
    app = _app(
        make_app,
        "set_query_op >> (retrieve_memory_op | lexical_recall_op) >> recall_fuse_op",
        "op.retrieve_memory_op.params.top_k=1",
        "op.retrieve_memory_op.params.time_recall_k=0",
    )
    memories = run(app, "t", query="pottery class").memories
    assert len(memories) > 1  # the vector list's one and some found by words only
    for memory in memories:
        assert memory.scores["recall"] == memory.scores["fused"] == memory.scores["cosine"]
    recall = [m.scores["recall"] for m in memories]
    assert recall == sorted(recall, reverse=True)


def test_rrf_is_the_reciprocal_rank_sum_scaled_to_its_best(make_app: Maker) -> None:
    app = _app(
        make_app,
        "set_query_op >> (retrieve_memory_op | lexical_recall_op) >> recall_fuse_op",
        "op.retrieve_memory_op.params.time_recall_k=0",
        "op.recall_fuse_op.params.method=rrf",
    )
    response = run(app, "t", query="pottery class")
    for memory in response.memories:
        expected = 0.0
        if "vector_rank" in memory.scores:
            expected += 1 / (60 + memory.scores["vector_rank"])
        if "lexical_rank" in memory.scores:
            expected += 1 / (60 + memory.scores["lexical_rank"])
        assert memory.scores["fused"] == pytest.approx(expected / (2 / 61))
    fused = [m.scores["fused"] for m in response.memories]
    assert fused == sorted(fused, reverse=True)


def test_word_only_memories_get_their_cosine_from_the_stored_vector(make_app: Maker) -> None:
    app = _app(
        make_app,
        "set_query_op >> (retrieve_memory_op | lexical_recall_op) >> recall_fuse_op",
        "op.retrieve_memory_op.params.top_k=1",
        "op.retrieve_memory_op.params.time_recall_k=0",
    )
    response = run(app, "t", query="pottery class")
    word_only = [m for m in response.memories if "vector_rank" not in m.scores]
    assert word_only, "some memories should be found by words only"
    for memory in word_only:
        assert "cosine" in memory.scores and memory.score_sources["cosine"] == "recall_fuse_op"
        assert -1.0 <= memory.scores["cosine"] <= 1.0


def test_linear_fusion_is_min_max_weighted(make_app: Maker) -> None:
    app = _app(
        make_app,
        "set_query_op >> (retrieve_memory_op | lexical_recall_op) >> recall_fuse_op",
        "op.recall_fuse_op.params.method=linear",
        "op.recall_fuse_op.params.lexical_weight=3",
        "op.retrieve_memory_op.params.time_recall_k=0",
    )
    memories = run(app, "t", query="pottery class").memories
    cosines = [m.scores["cosine"] for m in memories]
    lexical = [m.scores.get("lexical") for m in memories]
    known = [v for v in lexical if v is not None]
    for memory in memories:
        c = (memory.scores["cosine"] - min(cosines)) / (max(cosines) - min(cosines))
        w = (
            0.0
            if "lexical" not in memory.scores
            else (memory.scores["lexical"] - min(known)) / (max(known) - min(known))
        )
        assert memory.scores["fused"] == pytest.approx((c + 3 * w) / 4)


def test_both_weights_zero_is_refused_when_the_config_loads(make_app: Maker) -> None:
    zero = ("op.recall_fuse_op.params.vector_weight=0", "op.recall_fuse_op.params.lexical_weight=0")
    with pytest.raises(FlowmemError, match="vector_weight and lexical_weight are both 0"):
        make_app(*zero)


def test_the_hybrid_flow_puts_the_word_match_first(make_app: Maker) -> None:
    app = _app(make_app, HYBRID)
    assert ids(run(app, "t", query="Riverside pottery studio"))[0] == "pottery"
