"""neighbour_context_op: the turn said after a hit is recalled and lifted toward it; scope, status and the formula."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest

from flowmem.cli.explain import explain
from flowmem.schema.memory import Memory
from tests.unit.ops.conftest import Maker, ids, put, run

T0 = datetime(2024, 6, 3, 18, 0)
WITH = "set_query_op >> retrieve_memory_op >> neighbour_context_op >> fuse_rerank_op"
WITHOUT = "set_query_op >> retrieve_memory_op >> fuse_rerank_op"
QUERY = "what did Caroline do after the conference"


def turn(memory_id: str, content: str, seconds: int, **fields: Any) -> Memory:
    said = T0 + timedelta(seconds=seconds)
    fields.setdefault("target", "alice")
    fields.setdefault("memory_type", "conversation")
    return Memory(
        workspace_id="default", memory_id=memory_id, content=content, created_at=said, updated_at=said, **fields
    ).with_message_time(said)


CHAT = [
    turn("t1", "Melanie: long time no see, how are you", 0),
    turn("t2", "Melanie: Caroline, what did you do after the conference?", 1),
    turn("t3", "Caroline: I went hiking with Grace up Mount Tam.", 2),
    turn("t4", "Melanie: sounds lovely, send me photos", 3),
    turn("d1", "Caroline: the conference was about adoption agencies", 86_400),  # another day
    turn("d2", "Caroline: what a week, did you see the game", 2 * 86_400),
]


def flow_app(make_app: Maker, flow: str, *overrides: str) -> Any:
    return make_app(
        f"flow.personal_retrieve.flow_content={flow}",
        "op.retrieve_memory_op.params.top_k=2",
        "op.fuse_rerank_op.params.fuse_score_threshold=-1",
        *overrides,
    )


def test_the_answer_said_one_turn_later_is_found(make_app: Maker) -> None:
    before = flow_app(make_app, WITHOUT)
    put(before, CHAT)
    assert "t3" not in ids(run(before, query=QUERY))  # the answer shares no word with the question
    app = flow_app(make_app, WITH)
    put(app, CHAT)
    response = run(app, query=QUERY)
    found = {m.memory_id: m for m in response.memories}
    assert "t3" in found and "t1" in found  # the turns around t2, the best hit
    answer = found["t3"]
    assert answer.score_sources["context"] == "neighbour_context_op"
    assert "said 1 turn after t2" in answer.explain["context"]
    assert answer.scores["rank"] == answer.scores["context"]
    # Its own similarity to the query, for --explain, from the query vector retrieve_memory_op passes on.
    model = app.embedding_model()
    query = app.run_coroutine(model.embed_one(QUERY, kind="query"))
    said = app.run_coroutine(model.embed([CHAT[2].content]))[0]
    assert answer.scores["recall"] == pytest.approx(float(np.dot(query, said)), abs=1e-5)
    assert answer.score_sources["recall"] == "neighbour_context_op"
    shown = explain(response)  # --explain: the lift, with its reason, right after the rank it replaced
    assert "context" in shown and "said 1 turn after t2" in shown
    span = next(s for s in response.trace.spans if s.op == "neighbour_context_op")
    assert set(span.notes["added"]) >= {"t1", "t3"}
    assert {entry["memory_id"] for entry in span.notes["lifted"]} >= {"t3"}


def test_scope_status_and_session_bound_the_neighbours(make_app: Maker) -> None:
    app = flow_app(make_app, WITH, "op.neighbour_context_op.params.before=3", "op.neighbour_context_op.params.after=3")
    put(app, [
        *CHAT[:2],
        turn("bob", "Bob: I went hiking too", 2, target="bob"),
        turn("gone", "Caroline: I went hiking", 3, status="expired"),
        turn("s2", "Caroline: new session starts", 4, metadata={"session": 2}),
    ])  # fmt: skip
    app_ids = ids(run(app, query=QUERY))
    assert "t2" in app_ids and "t1" in app_ids
    assert not {"bob", "gone"} & set(app_ids)  # another user's turn, an expired one
    # t2 has no session and s2 has one: sessions only part memories that both name one.
    assert "s2" in app_ids
    parted = flow_app(
        make_app,
        WITH,
        "op.neighbour_context_op.params.before=3",
        "op.neighbour_context_op.params.after=3",
        "op.retrieve_memory_op.params.top_k=1",
    )
    put(parted, [
        turn("p1", "Melanie: Caroline, what did you do after the conference?", 1, metadata={"session": 1}),
        turn("p2", "Caroline: new session starts", 2, metadata={"session": 2}),
    ])  # fmt: skip
    assert ids(run(parted, query=QUERY)) == ["p1"]


def test_lift_formula_for_candidates(make_app: Maker) -> None:
    app = flow_app(
        make_app, WITH, "op.retrieve_memory_op.params.top_k=10", "op.neighbour_context_op.params.after=2",
        "op.neighbour_context_op.params.top_n=1",
    )  # fmt: skip
    put(app, CHAT)
    response = run(app, query=QUERY, top_k=10)
    found = {m.memory_id: m for m in response.memories}
    hit = found["t2"].scores["recall"]
    for memory_id, share in (("t1", 0.5), ("t3", 0.5), ("t4", 0.25)):
        own = found[memory_id].scores["recall"]
        assert own < hit
        assert found[memory_id].scores["context"] == pytest.approx(own + share * (hit - own))
        assert found[memory_id].scores["rank"] == pytest.approx(found[memory_id].scores["context"])
    assert "context" not in found["d1"].scores and "context" not in found["t2"].scores


def test_off_when_no_turns(make_app: Maker) -> None:
    app = flow_app(make_app, WITH)
    put(app, [t.model_copy(update={"memory_type": "observation"}) for t in CHAT])  # not said in turns
    response = run(app, query=QUERY)
    assert "context" not in {k for m in response.memories for k in m.scores}


def test_a_message_kept_as_several_memories_is_one_turn(make_app: Maker) -> None:
    """A message split into facts is several memories said at one time: the hit's own facts are no neighbours of it,
    and the turn said after the message is its next turn (LoCoMo dev's summary ingest: Caroline's answer to a
    question split from Melanie's turn was never lifted, its three sibling facts taking both 'next' places)."""
    said = ["Melanie: my kids love summer break", "we're going camping next month", CHAT[1].content]
    facts = [turn(f"f{i}", text, 1, source=["m2"]) for i, text in enumerate(said)]
    chat = [
        turn("t1", CHAT[0].content, 0, source=["m1"]),
        *facts,
        turn("t3", CHAT[2].content, 2, source=["m3"]),
        turn("t4", CHAT[3].content, 3, source=["m4"]),
    ]
    app = flow_app(make_app, WITH, "op.neighbour_context_op.params.top_n=1")
    put(app, chat)
    response = run(app, query=QUERY)
    found = {m.memory_id: m for m in response.memories}
    assert ids(response)[0] == "f2", ids(response)
    assert "said 1 turn after f2" in found["t3"].explain["context"]
    assert "said 2 turns after f2" in found["t4"].explain["context"]
    assert "said 1 turn before f2" in found["t1"].explain["context"]
    assert not any("f2" in found[f].explain.get("context", "") for f in ("f0", "f1") if f in found)  # its own turn
