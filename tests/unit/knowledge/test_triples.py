"""Issue 15: knowledge triples of the sample chat, closed when the write path expires a superseded fact."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from flowmem import App
from flowmem.eval.samples import load_messages
from flowmem.scoring.triples import triples_of
from tests.unit.ops.conftest import FAST, mem, put


def summarised(*overrides: str) -> App:
    app = App(overrides=[*FAST, *overrides])
    app.run_sync("personal_summary", user_id="alice", workspace_id="demo", messages=load_messages())
    return app


def triples(app: App, **inputs: Any) -> list[dict[str, Any]]:
    inputs.setdefault("workspace_id", "demo")
    response = app.run_sync("personal_triples", user_id="alice", **inputs)
    return list(response.outputs["triples"])


def test_the_sample_chat_s_facts_with_the_time_each_held() -> None:
    with summarised() as app:
        found = triples(app)
    by_fact = {(t["relation"], t["object"]): t for t in found}
    assert set(found[0]) == {"subject", "relation", "object", "valid_from", "valid_to"}
    assert {("partner", "Sam"), ("has_cat", "Mochi"), ("manager", "Dana"), ("lives_in", "Berkeley")} <= set(by_fact)
    assert all(t["subject"] == "alice" for t in found)
    # The move (chat-0164) expired the Oakland home: the triple closes then, and the Berkeley one opens.
    assert by_fact[("lives_in", "Oakland")]["valid_from"] == "2024-04-22T21:12:26"
    assert by_fact[("lives_in", "Oakland")]["valid_to"] == "2024-05-19T17:20:41"
    # "We moved into …" tells of something done without a date: it happened that day (the event's day opens it)
    assert by_fact[("lives_in", "Berkeley")] == {"subject": "alice", "relation": "lives_in", "object": "Berkeley",
                                                 "valid_from": "2024-05-19T00:00:00", "valid_to": None}  # fmt: skip
    assert by_fact[("diet", "vegetarian")]["valid_to"] == "2024-05-14T20:45:27"  # "start eating fish again"


def test_the_query_s_triples_come_first() -> None:
    with summarised() as app:
        where = triples(app, query="Where does Alice live now?")
        who = triples(app, query="Is Sam coming to the housewarming?")
    # "We're in North Berkeley now" names the same home more narrowly: both hold, the latest first
    assert [(t["relation"], t["object"]) for t in where[:3]] == [
        ("lives_in", "North Berkeley"),
        ("lives_in", "Berkeley"),
        ("lives_in", "Oakland"),
    ]
    assert (who[0]["relation"], who[0]["object"]) == ("partner", "Sam")


def test_closed_facts_can_be_left_out() -> None:
    with summarised("op.knowledge_triples_op.params.include_expired=false") as app:
        found = triples(app)
    assert ("lives_in", "Berkeley") in {(t["relation"], t["object"]) for t in found}
    assert all(t["valid_to"] is None for t in found)


def test_an_observation_in_the_third_person_holds_from_its_event_time() -> None:
    memory = mem("m", "Alice's manager Dana approved the design. Alice lives in Lisbon.", memory_type="observation",
                 said=datetime(2024, 6, 1, 9), event=datetime(2024, 6, 3))  # fmt: skip
    found = {(t.relation, t.object, t.valid_from) for t in triples_of(memory)}
    assert found == {("manager", "Dana", datetime(2024, 6, 3)), ("lives_in", "Lisbon", datetime(2024, 6, 3))}


def test_the_llm_path_times_each_triple_by_its_memory() -> None:
    reply = json.dumps([{"memory": 0, "subject": "Alice", "relation": "likes", "object": "hiking"},
                        {"memory": 99, "subject": "x", "relation": "y", "object": "z"}])  # fmt: skip
    config = {"llm": {"default": {"backend": "fake", "params": {"replies": [reply]}}}}
    with App(config=config, overrides=[*FAST, "op.knowledge_triples_op.params.use_llm=true"]) as app:
        put(app, [mem("hike", "Alice loves hiking.", created_at=datetime(2024, 5, 30))])
        found = triples(app, workspace_id="default")
        calls = app.backend("llm").calls
    assert found == [{"subject": "Alice", "relation": "likes", "object": "hiking",
                      "valid_from": "2024-05-30T00:00:00", "valid_to": None}]  # fmt: skip
    assert len(calls) == 1 and "Alice loves hiking." in calls[0].messages[-1].content


def test_an_unusable_llm_reply_falls_back_to_the_rules_with_a_warning() -> None:
    config = {"llm": {"default": {"backend": "fake", "params": {"replies": ["[]"]}}}}
    with App(config=config, overrides=[*FAST, "op.knowledge_triples_op.params.use_llm=true"]) as app:
        put(app, [mem("home", "I live in Oakland.", memory_type="conversation")])
        response = app.run_sync("personal_triples", user_id="alice")
    assert [(t["relation"], t["object"]) for t in response.outputs["triples"]] == [("lives_in", "Oakland")]
    assert any("no usable triples" in w for w in response.warnings)
