"""fuse_rerank_op: the contract formula, every factor recorded, time match, answer lines."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from flowmem.schema.memory import Memory
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
        "op.semantic_rank_op.params.enable_ranker=false",
        "op.fuse_rerank_op.params.fuse_time_ratio=2.5",
        "op.fuse_rerank_op.params.fuse_ratio_dict={conversation: 0.5, insight: 3}",
    )
    put(app, [
        mem("conv", "hiking with grace on the weekend!", memory_type="conversation", said=SAT),
        mem("ins", "hiking with grace on the weekend?", memory_type="insight", said=SAT - timedelta(days=30)),
        mem("obs", "hiking with grace on the weekend.", memory_type="observation", said=SAT - timedelta(days=3)),
        mem("cust", "hiking with grace on the weekend;", memory_type="obs_customized", said=SAT + timedelta(days=1)),
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
    assert response.answer.splitlines()[0] == "[2024-05-09 10:00:00 Thursday] hiking with grace on the weekend?"


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
