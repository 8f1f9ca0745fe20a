"""fuse_rerank_op's past-state ratio: for a query about now, a memory that tells a state as over ("I used to live in
Sheffield") goes below one about now that scores close to it; a query that looks back keeps the order by score."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from flowmem.schema.memory import Memory
from flowmem.scoring.aspect import asks_about_now, tells_past_state
from tests.unit.ops.conftest import Maker, ids, mem, run

FLOW = "set_query_op >> fuse_rerank_op"


def scored(memory_id: str, content: str, recall: float) -> Memory:
    memory = mem(memory_id, content, memory_type="conversation", said=datetime(2025, 3, 1))
    memory.set_score("recall", recall, "retrieve_memory_op")
    return memory


MEMORIES = [
    scored("sheffield", "I used to live in Sheffield and I miss the chippy on my old road", 0.675),
    scored("harrogate", "Moved into the new place in Harrogate this weekend, boxes everywhere", 0.647),
]


def fuse(make_app: Maker, query: str, *overrides: str) -> Any:
    app = make_app(f"flow.t.flow_content={FLOW}", "flow.t.inputs=[memories]", *overrides)
    return run(app, "t", query=query, memories=[m.model_copy(deep=True) for m in MEMORIES])


def test_a_state_told_as_over_goes_below_the_present_for_a_query_about_now(make_app: Maker) -> None:
    response = fuse(make_app, "which town do I live in?")
    assert ids(response) == ["harrogate", "sheffield"]
    assert response.memories[1].scores["past_state_ratio"] == 0.8
    assert ids(fuse(make_app, "where did I use to live?")) == ["sheffield", "harrogate"]  # it looks back
    off = fuse(make_app, "which town do I live in?", "op.fuse_rerank_op.params.past_state_ratio=1")
    assert ids(off) == ["sheffield", "harrogate"]


@pytest.mark.parametrize(
    ("text", "past"),
    [("I used to live in Sheffield", True), ("我以前在字节做产品", True), ("she was formerly a nurse", True),
     ("I'm used to the noise", False), ("I got used to it", False), ("this is used to clean lenses", False),
     ("I live in Harrogate", False)],
)  # fmt: skip
def test_a_past_state_is_told_by_its_aspect(text: str, past: bool) -> None:
    assert tells_past_state(text) is past


@pytest.mark.parametrize(
    ("query", "now"),
    [("which town do I live in?", True), ("我现在住哪", True), ("where did I use to live?", False),
     ("what was my job before?", False), ("我以前住哪", False)],
)  # fmt: skip
def test_a_query_about_now_has_no_word_that_looks_back(query: str, now: bool) -> None:
    assert asks_about_now(query) is now
