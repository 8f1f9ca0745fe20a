"""fuse_rerank_op's plan_ratio: for a question about the past, a memory said before its event happened (a plan) weighs
less than one that tells what happened — plans change ("getting married on 7 June", then "married Saturday")."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flowmem.schema.memory import Memory
from tests.unit.ops.conftest import Maker, ids, mem, run

FLOW = "set_query_op >> fuse_rerank_op"


def scored(memory_id: str, content: str, recall: float, said: datetime, event: datetime) -> Memory:
    memory = mem(memory_id, content, memory_type="conversation", said=said, event=event)
    memory.set_score("recall", recall, "retrieve_memory_op")
    return memory


PLAN = scored("plan", "Getting married on 7 June! Fiancé is Ben", 0.62, datetime(2025, 3, 1, 20), datetime(2025, 6, 7))
DONE = scored(
    "done", "We did it!! Married Saturday, best day ever", 0.58, datetime(2025, 6, 16, 9), datetime(2025, 6, 14)
)
FILLER = [
    scored(f"f{i}", f"the garden {i}", 0.40 - i / 100, datetime(2025, 2, 1), datetime(2025, 2, 1)) for i in range(4)
]


def ask(make_app: Maker, query: str, *overrides: str) -> Any:
    app = make_app(f"flow.t.flow_content={FLOW}", "flow.t.inputs=[memories]", *overrides)
    memories = [m.model_copy(deep=True) for m in (PLAN, DONE, *FILLER)]
    return run(app, "t", query=query, memories=memories, timestamp=datetime(2025, 7, 1))


def test_a_question_about_the_past_prefers_what_happened_to_what_was_planned(make_app: Maker) -> None:
    response = ask(make_app, "what did we do at the wedding?")
    assert ids(response)[:2] == ["done", "plan"]
    assert response.memories[1].scores["plan_shift"] < 0 and "plan_shift" not in response.memories[0].scores


def test_a_question_about_now_or_the_ratio_off_leaves_the_plan_where_it_was(make_app: Maker) -> None:
    assert ids(ask(make_app, "who is my fiancé?"))[:2] == ["plan", "done"]
    assert ids(ask(make_app, "what did we do at the wedding?", "op.fuse_rerank_op.params.plan_ratio=1"))[:2] == [
        "plan",
        "done",
    ]
