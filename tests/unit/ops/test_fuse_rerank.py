"""fuse_rerank_op: the contract formula, every factor recorded, time match, answer lines."""

from __future__ import annotations

import math
import statistics
from datetime import datetime, timedelta
from typing import Any

import pytest

from flowmem.cli.explain import explain
from flowmem.schema.memory import Memory
from flowmem.scoring.priors import prior_shift, spread
from flowmem.scoring.time_match import time_match
from flowmem.timeexpr.model import ExtractedTime
from tests.unit.ops.conftest import Maker, ids, mem, put, run

WEEKEND = ExtractedTime(
    parts={"year": 2024, "week": 23}, start=datetime(2024, 6, 8), end=datetime(2024, 6, 10),
    expression="last weekend", granularity="weekend",
)  # fmt: skip
SAT = datetime(2024, 6, 8, 10)


@pytest.mark.parametrize(
    ("memory", "matched", "why"),
    [
        (mem("said-sat", "x", said=SAT), True, "said within the query's time"),
        (mem("said-fri", "x", said=SAT - timedelta(hours=12)), False, "time does not match the query's"),
        (mem("event-sun", "x", said=SAT - timedelta(days=5), event=SAT + timedelta(days=1)), True, "event time is"),
        (mem("event-next", "x", event=SAT + timedelta(days=7)), False, "does not match"),
        (Memory(workspace_id="w", content="x", event_year=2024, event_month=7), False, "does not match"),
        (Memory(workspace_id="w", content="x", event_year=2024), False, "does not match"),  # coarser than a weekend
        (
            Memory(workspace_id="w", content="trip", event_start=datetime(2024, 6, 5), event_end=datetime(2024, 6, 9)),
            True,
            "event range overlaps",
        ),
        (Memory(workspace_id="w", content="no time at all"), False, "does not match"),
    ],
)
def test_time_match(memory: Memory, matched: bool, why: str) -> None:
    result, reason = time_match(memory, WEEKEND)
    assert result is matched
    assert why in reason


def test_coarse_event_matches_a_coarse_query() -> None:
    june = ExtractedTime(parts={"year": 2024, "month": 6}, start=datetime(2024, 6, 1), end=datetime(2024, 7, 1),
                         expression="in June", granularity="month")  # fmt: skip
    assert time_match(Memory(workspace_id="w", content="x", event_year=2024, event_month=6), june)[0]
    assert not time_match(Memory(workspace_id="w", content="x", event_year=2024, event_month=7), june)[0]


def test_formula_and_factors(make_app: Maker) -> None:
    app = make_app(
        # The seed's flow: fuse_rerank_op's formula on plain vector recall (no word recall, neighbours or speakers).
        "flow.personal_retrieve.flow_content=set_query_op"
        " >> (extract_time_op | (retrieve_memory_op >> semantic_rank_op)) >> fuse_rerank_op",
        "op.semantic_rank_op.params.enable_ranker=false",
        "op.fuse_rerank_op.params.type_ratio_mode=multiply",  # the seed's formula (the shipped config spreads)
        "op.fuse_rerank_op.params.fuse_time_ratio=2.5",
        "op.fuse_rerank_op.params.fuse_ratio_dict={conversation: 0.5, insight: 3}",
    )
    put(app, [
        # Worded apart (not only punctuated apart): retrieval keeps one copy of the same content.
        mem("conv", "hiking with grace on the weekend 1", memory_type="conversation", said=SAT),
        mem("ins", "hiking with grace on the weekend 2", memory_type="insight", said=SAT - timedelta(days=30)),
        mem("obs", "hiking with grace on the weekend 3", memory_type="observation", said=SAT - timedelta(days=3)),
        mem("cust", "hiking with grace on the weekend 4", memory_type="obs_customized", said=SAT + timedelta(days=1)),
    ])  # fmt: skip
    response = run(app, query="hiking with grace last weekend")
    by_id = {m.memory_id: m for m in response.memories}
    expected = {"conv": (0.5, 2.5), "ins": (3.0, 1.0), "obs": (1.0, 1.0), "cust": (1.0, 2.5)}  # cust: not in the dict
    for memory_id, (type_ratio, time_ratio) in expected.items():
        m = by_id[memory_id]
        base = m.scores["recall"]
        assert m.scores["type_ratio"] == type_ratio and m.scores["time_ratio"] == time_ratio
        assert m.scores["final"] == pytest.approx(base * type_ratio * time_ratio)
        assert m.scores["time_match"] == (1.0 if time_ratio > 1 else 0.0)
        assert {m.score_sources[k] for k in ("type_ratio", "time_ratio", "final")} == {"fuse_rerank_op"}
        assert m.score_sources["recall"] == "retrieve_memory_op"
    assert ids(response) == ["ins", "cust", "conv", "obs"]
    assert response.answer.splitlines()[0] == "[2024-05-09 10:00:00 Thursday] hiking with grace on the weekend 2"


def test_threshold_and_top_k(make_app: Maker) -> None:
    app = make_app(
        "op.fuse_rerank_op.params.fuse_score_threshold=0.5", "op.fuse_rerank_op.params.output_memory_max_count=2"
    )
    put(app, [mem("close", "alice went hiking on mount tam"), mem("also", "alice hiking mount tam again"),
              mem("third", "alice likes hiking"), mem("far", "quarterly tax filing deadline")])  # fmt: skip
    response = run(app, query="alice hiking mount tam")
    fuse = next(s for s in response.trace.spans if s.op == "fuse_rerank_op")
    reasons = {miss["memory_id"]: miss["reason"] for miss in fuse.notes["dropped"]}
    assert "fuse_score_threshold 0.5" in reasons["far"]
    assert len(response.memories) == 2 and "beyond the best 2" in reasons["third"]
    assert len(run(app, query="alice hiking mount tam", top_k=1).memories) == 1  # the run's top_k wins


def test_answer_without_known_time_is_plain_content(make_app: Maker) -> None:
    app = make_app()
    put(app, [mem("plain", "Alice  likes\ngreen tea")])
    assert run(app, query="green tea").answer == "Alice likes green tea"


def scored(memory_id: str, memory_type: str, recall: float) -> Memory:
    memory = mem(memory_id, f"memory {memory_id}", memory_type=memory_type)
    memory.set_score("recall", recall, "retrieve_memory_op")
    return memory


def fuse(make_app: Maker, memories: list[Memory], mode: str, *overrides: str) -> Any:
    app = make_app(
        "flow.fuse_only.flow_content=fuse_rerank_op",
        "flow.fuse_only.inputs=[memories]",
        f"op.fuse_rerank_op.params.type_ratio_mode={mode}",
        *overrides,
    )
    return run(app, flow="fuse_only", memories=[m.model_copy(deep=True) for m in memories])


# The offline embedder's band: every recall between 0.78 and 0.83, the answer clearly ahead of the rest.
BAND = [scored("answer", "observation", 0.83), scored("insight", "insight", 0.80)] + [
    scored(f"other{i}", "observation", 0.78 + 0.002 * i) for i in range(8)
]


def test_multiply_lets_the_type_ratio_decide_on_a_narrow_band(make_app: Maker) -> None:
    response = fuse(make_app, BAND, "multiply")
    assert ids(response)[0] == "insight"  # 0.80 × 2 beats 0.83 × 1: the seed's formula, the op's default
    assert "type_shift" not in response.memories[0].scores


def test_spread_weighs_the_type_ratio_against_the_relevance_spread(make_app: Maker) -> None:
    response = fuse(make_app, BAND, "spread")
    assert ids(response)[:2] == ["answer", "insight"]  # a lead of 2σ outweighs the insight's ln 2 = 0.69σ
    by_id = {m.memory_id: m for m in response.memories}
    sigma = statistics.pstdev(m.scores["recall"] for m in BAND)
    insight, answer = by_id["insight"], by_id["answer"]
    assert insight.scores["type_ratio"] == 2.0
    assert insight.scores["type_shift"] == pytest.approx(sigma * math.log(2))
    assert insight.scores["final"] == pytest.approx(0.80 + sigma * math.log(2))
    assert answer.scores["type_shift"] == 0.0 and answer.score_sources["type_shift"] == "fuse_rerank_op"


def test_spread_lets_the_type_ratio_break_a_near_tie(make_app: Maker) -> None:
    tie = [
        scored("obs", "observation", 0.801),
        scored("insight", "insight", 0.800),
        scored("conv", "conversation", 0.802),
    ]
    tie += [scored(f"other{i}", "observation", 0.70 + 0.01 * i) for i in range(8)]
    assert ids(fuse(make_app, tie, "spread"))[:3] == ["insight", "obs", "conv"]


def test_spread_is_the_same_on_any_band(make_app: Maker) -> None:
    # The same ranking shape on an e5 cosine band and on a fused 0-1 score: the same order.
    cosine = [scored("a", "insight", 0.78), scored("b", "observation", 0.80), scored("c", "conversation", 0.83)]
    cosine += [scored("d", "observation", 0.79), scored("e", "insight", 0.76)]
    fused = [scored(m.memory_id, m.memory_type, (m.scores["recall"] - 0.7) * 7) for m in cosine]
    assert ids(fuse(make_app, cosine, "spread")) == ids(fuse(make_app, fused, "spread"))


def test_spread_with_nothing_to_weigh(make_app: Maker) -> None:
    # One type only: every memory shifts alike, the base decides; one candidate: σ = 0, no shift.
    turns = [scored(f"t{i}", "conversation", 0.5 + 0.01 * i) for i in range(5)]
    assert ids(fuse(make_app, turns, "spread")) == ["t4", "t3", "t2", "t1", "t0"]
    alone = fuse(make_app, [scored("only", "conversation", 0.4)], "spread").memories[0]
    assert alone.scores["type_shift"] == 0.0 and alone.scores["final"] == pytest.approx(0.4)
    # A ratio of 0 means "never this type": it keeps nothing of its base.
    never = [scored("x", "insight", 0.9), scored("y", "observation", 0.5)]
    response = fuse(make_app, never, "spread", "op.fuse_rerank_op.params.fuse_ratio_dict={insight: 0}")
    assert ids(response) == ["y", "x"] and response.memories[1].scores["final"] == 0.0


def test_spread_keeps_the_time_ratio_a_multiplier(make_app: Maker) -> None:
    # A time match is evidence the question gives, not a prior: it multiplies the shifted base as before.
    weekend = [scored("then", "conversation", 0.70).with_message_time(SAT), scored("ins", "insight", 0.83)]
    weekend += [scored(f"o{i}", "observation", 0.72 + 0.01 * i) for i in range(6)]
    app = make_app(
        "flow.fuse_time.flow_content=set_query_op >> extract_time_op >> fuse_rerank_op",
        "flow.fuse_time.inputs=[memories]",
        "op.fuse_rerank_op.params.type_ratio_mode=spread",
        "op.fuse_rerank_op.params.fuse_time_ratio=3",
    )
    response = run(app, flow="fuse_time", query="what did I do last weekend?", memories=weekend)
    then = response.memories[0]
    assert then.memory_id == "then" and then.scores["time_ratio"] == 3.0
    assert then.scores["final"] == pytest.approx((0.70 + then.scores["type_shift"]) * 3)


def test_spread_helpers() -> None:
    assert spread([0.5]) == 0.0 and spread([]) == 0.0
    assert spread([0.0, 2.0]) == pytest.approx(1.0)
    assert prior_shift(2.0, 0.1, 0.5) == pytest.approx(0.1 * math.log(2))
    assert prior_shift(0.0, 0.1, 0.5) == -0.5


def test_explain_shows_the_type_shift_after_the_type_ratio(make_app: Maker) -> None:
    text = explain(fuse(make_app, BAND, "spread"))
    block = text[text.index("id insight") :]
    assert block.index("   type_ratio ") < block.index("   type_shift ") < block.index("   final ")
    assert "type_shift   0.0" in block and "(σ · ln type_ratio)" in block


def _when_band() -> list[Memory]:
    dated = mem("dated", "went hiking at Mount Tam", event=SAT)
    dated.set_score("recall", 0.80, "retrieve_memory_op")
    undated = mem("undated", "I love hiking")
    undated.set_score("recall", 0.81, "retrieve_memory_op")
    return [dated, undated, *(scored(f"other{i}", "observation", 0.70 + 0.01 * i) for i in range(6))]


@pytest.mark.parametrize(
    ("query", "ratio", "first"),
    [
        ("when did I go hiking?", "2.0", "dated"),  # asks for a time: the memory that says when gains σ·ln 2
        ("我是哪天去爬山的？", "2.0", "dated"),
        ("what do I like doing?", "2.0", "undated"),  # asks for no time: relevance alone
        ("when did I go hiking?", "1.0", "undated"),  # the prior off
    ],
)
def test_a_when_question_prefers_a_memory_that_says_when(make_app: Maker, query: str, ratio: str, first: str) -> None:
    from flowmem.timeexpr.query import QueryTimes

    app = make_app(
        "flow.fuse_only.flow_content=fuse_rerank_op",
        "flow.fuse_only.inputs=[memories, query_times]",
        f"op.fuse_rerank_op.params.when_ratio={ratio}",
    )
    known = QueryTimes.of(query, SAT + timedelta(days=3))
    response = run(app, flow="fuse_only", memories=_when_band(), query_times=known)
    assert ids(response)[0] == first
    dated = next(m for m in response.memories if m.memory_id == "dated")
    assert (dated.scores.get("when_shift", 0.0) > 0) == (known.asks_when and ratio != "1.0")
