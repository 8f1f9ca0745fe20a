"""The recency order of fuse_rerank_op: a query asking for the latest or the earliest ("when did I last go
hiking?") puts the memories near the best score in order of when, and word recall does not match the operator."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flowmem.cli.explain import explain
from flowmem.schema.memory import Memory
from tests.unit.ops.conftest import Maker, ids, mem, put, run

JAN, FEB, MAR = datetime(2025, 1, 12, 18), datetime(2025, 2, 14, 9), datetime(2025, 3, 22, 20)
FLOW = "set_query_op >> fuse_rerank_op"


def scored(memory_id: str, recall: float, *, event: datetime | None = None, said: datetime | None = None) -> Memory:
    memory = mem(memory_id, f"memory {memory_id}", memory_type="conversation", event=event, said=said)
    memory.set_score("recall", recall, "retrieve_memory_op")
    return memory


# Three hiking days close in score (a band like the offline embedder's); below them, clearly apart, a later
# memory about something else ("my last day at Dell") and two more.
HIKES = [
    scored("hike-feb", 0.64, event=FEB),
    scored("hike-jan", 0.63, event=JAN),
    scored("hike-mar", 0.62, said=MAR),  # no event time: when it was said
    scored("dell", 0.50, event=datetime(2025, 3, 30)),
    scored("ramen", 0.49, event=datetime(2025, 3, 31)),
    scored("job", 0.48, said=datetime(2025, 4, 1)),
]


def fuse(make_app: Maker, query: str, *overrides: str) -> Any:
    app = make_app(f"flow.t.flow_content={FLOW}", "flow.t.inputs=[memories]", *overrides)
    return run(app, "t", query=query, memories=[m.model_copy(deep=True) for m in HIKES])


def test_last_puts_the_latest_of_those_near_the_best_first(make_app: Maker) -> None:
    response = fuse(make_app, "when did I last go hiking?", "op.fuse_rerank_op.params.output_memory_max_count=6")
    assert ids(response) == ["hike-mar", "hike-feb", "hike-jan", "dell", "ramen", "job"]  # the rest by score
    assert [m.scores.get("recency_rank") for m in response.memories] == [1.0, 2.0, 3.0, None, None, None]
    assert "latest first by said time" in response.memories[0].explain["recency_rank"]
    assert "latest first by event time" in response.memories[1].explain["recency_rank"]


def test_first_puts_the_earliest_first(make_app: Maker) -> None:
    assert ids(fuse(make_app, "when did I first go hiking?"))[:3] == ["hike-jan", "hike-feb", "hike-mar"]
    assert ids(fuse(make_app, "我上次去爬山是什么时候？"))[:3] == ["hike-mar", "hike-feb", "hike-jan"]


def test_without_the_operator_or_with_it_off_the_order_is_the_scores(make_app: Maker) -> None:
    by_score = ["hike-feb", "hike-jan", "hike-mar", "dell", "ramen"]
    assert ids(fuse(make_app, "when did I go hiking?")) == by_score
    assert ids(fuse(make_app, "my last day at Dell")) == by_score
    assert ids(fuse(make_app, "when did I last go hiking?", "op.fuse_rerank_op.params.recency_margin=null")) == (
        by_score
    )
    # A margin of 0: only what ties with the best is ordered by when.
    assert ids(fuse(make_app, "when did I last go hiking?", "op.fuse_rerank_op.params.recency_margin=0")) == (by_score)


def test_the_cut_keeps_the_latest_and_says_why_the_others_went(make_app: Maker) -> None:
    response = fuse(make_app, "when did I last go hiking?", "op.fuse_rerank_op.params.output_memory_max_count=2")
    assert ids(response) == ["hike-mar", "hike-feb"]
    dropped = [miss for span in response.trace.spans for miss in span.notes.get("dropped", [])]
    assert dropped[0]["memory_id"] == "hike-jan" and "beyond the first 2 by when" in dropped[0]["reason"]


def test_explain_says_which_op_reordered_and_why(make_app: Maker) -> None:
    text = explain(fuse(make_app, "when did I last go hiking?"))
    assert text.splitlines()[0].startswith("recency: 'last' asks for the latest: fuse_rerank_op put the 3 memories")
    block = text[text.index("id hike-mar") :]
    assert block.index("   final ") < block.index("   recency_rank ") and "1.0000   by fuse_rerank_op" in block


def test_word_recall_does_not_match_the_operator(make_app: Maker) -> None:
    app = make_app("flow.t.flow_content=set_query_op >> lexical_recall_op", "flow.t.outputs=[lexical_memories]")
    put(app, [mem("dell", "my last day at Dell is March 19"), mem("hike", "went hiking up Mount Tam")])
    found = run(app, "t", query="when did I last go hiking?").outputs["lexical_memories"]
    assert [m.memory_id for m in found] == ["hike"]  # not "dell" by the word "last"
    found = run(app, "t", query="when is my last day at Dell?").outputs["lexical_memories"]
    assert [m.memory_id for m in found] == ["dell"]  # an adjective "last" is a word like any other


def test_two_candidates_a_hair_apart_are_a_tie_ordered_by_when(make_app: Maker) -> None:
    """σ of two scores says nothing: 0.582 against 0.577 (two swims, a fortnight apart) is a tie, and the later
    goes first; with ``min_spread`` 0 the measured σ (0.0025) keeps the earlier, a hair better, first."""
    swims = [scored("swim-early", 0.582, event=JAN), scored("swim-late", 0.577, event=MAR)]
    app = make_app(f"flow.t.flow_content={FLOW}", "flow.t.inputs=[memories]")
    response = run(app, "t", query="when did I last go swimming?", memories=swims)
    assert ids(response) == ["swim-late", "swim-early"]
    measured = make_app(
        f"flow.t.flow_content={FLOW}", "flow.t.inputs=[memories]", "op.fuse_rerank_op.params.min_spread=0"
    )
    assert ids(run(measured, "t", query="when did I last go swimming?", memories=swims)) == ["swim-early", "swim-late"]
    # Apart by more than the least spread, the better stays first.
    apart = [scored("swim-early", 0.62, event=JAN), scored("swim-late", 0.577, event=MAR)]
    assert ids(run(app, "t", query="when did I last go swimming?", memories=apart)) == ["swim-early", "swim-late"]
