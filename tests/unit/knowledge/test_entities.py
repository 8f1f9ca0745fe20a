"""Issue 15: entities of the sample chat — found by the offline rules, described, stored, rolled, erased by forget."""

from __future__ import annotations

import json
from typing import Any

from flowmem import App
from flowmem.eval.samples import load_messages
from flowmem.schema.memory import Memory, Message
from flowmem.scoring.entities import find_mentions
from tests.unit.ops.conftest import FAST

SAMPLE = [m for m in load_messages()]


def entities_of(app: App, messages: list[Message], query: str = "", **inputs: Any) -> list[dict[str, Any]]:
    response = app.run_sync("personal_entities", user_id="alice", workspace_id="demo", messages=messages,
                            query=query, **inputs)  # fmt: skip
    return list(response.outputs["entities"])


def stored(app: App) -> list[Memory]:
    async def collect() -> list[Memory]:
        return [m async for batch in app.vector_store().iterate("demo") for m in batch]

    return app.run_coroutine(collect())


def test_the_rules_find_people_pets_places_and_relations() -> None:
    found = {(m.name, m.kind, m.relation) for m in find_mentions(
        "I live in Oakland, in Temescal, with my cat Mochi. My partner Sam is over most of the time anyway.",
        user="alice")}  # fmt: skip
    assert {("Oakland", "place", "home"), ("Temescal", "place", ""), ("Mochi", "pet", "cat"),
            ("Sam", "person", "partner")} <= found  # fmt: skip
    assert not {name for name, _, _ in found} & {"I", "My", "Alice"}
    zh = {(m.name, m.kind) for m in find_mentions("我妈问我们下周日要不要一起去饮早茶。我的妹妹叫小美。")}
    assert {("妈妈", "person"), ("小美", "person")} <= zh
    # A name first in its sentence is found once it is known, as the module's docstring says.
    assert find_mentions("Grace can't come.") == []
    assert [m.name for m in find_mentions("Grace can't come.", known={"grace": "person"})] == ["Grace"]


def test_the_sample_chat_s_entities_are_described_and_stored() -> None:
    with App(overrides=FAST) as app:
        entities = entities_of(app, SAMPLE, query="Is Sam coming to the housewarming?")
        memories = stored(app)
    by_name = {e["name"]: e for e in entities}
    assert entities[0]["name"] == "Sam"  # the query names him
    assert by_name["Sam"]["kind"] == "person" and by_name["Sam"]["description"].startswith("alice's partner; ")
    assert set(entities[0]) == {"name", "kind", "description", "updated_at"}
    names = {m.metadata["entity"]["name"]: m for m in memories}
    assert {"Sam", "Mochi", "Dana", "Grace", "Oakland", "Chicago", "Kyoto", "外婆"} <= set(names)
    assert (
        names["Mochi"].metadata["entity"]["kind"] == "pet" and "cat" in names["Mochi"].metadata["entity"]["relations"]
    )
    assert names["Dana"].content.startswith("Dana (person): alice's manager; ")
    assert all(m.memory_type == "entity" and m.target == "alice" for m in memories)
    assert names["Sam"].updated_at.isoformat() == by_name["Sam"]["updated_at"]


def test_a_description_rolls_on_and_a_rerun_changes_nothing() -> None:
    first, later = SAMPLE[:10], SAMPLE[10:]
    with App(overrides=FAST) as app:
        entities_of(app, first)
        mochi_before = next(m for m in stored(app) if m.metadata["entity"]["name"] == "Mochi")
        entities_of(app, later)
        entities_of(app, later)  # the same messages again: no mention recorded twice
        mochi = next(m for m in stored(app) if m.metadata["entity"]["name"] == "Mochi")
        history = app.run_coroutine(app.vector_store().history("demo", mochi.memory_id))
    assert mochi.memory_id == mochi_before.memory_id and mochi.updated_at > mochi_before.updated_at
    texts = [m["text"] for m in mochi.metadata["entity"]["mentions"]]
    assert len(texts) == len(set(texts))
    assert "Mochi ignored me for an hour to punish me for leaving." in texts
    assert [e.event for e in history] == ["add", "update"]  # the rerun wrote nothing


def test_a_chat_query_that_later_arrives_as_a_message_is_one_mention() -> None:
    said = SAMPLE[4]  # "I live in Oakland, in Temescal, with my cat Mochi. My partner Sam is over …"
    with App(overrides=FAST) as app:
        entities_of(app, [], query=said.content, timestamp=said.time_created)
        entities_of(app, [said])
        mochi = next(m for m in stored(app) if m.metadata["entity"]["name"] == "Mochi")
    assert [m["text"] for m in mochi.metadata["entity"]["mentions"]] == [
        "I live in Oakland, in Temescal, with my cat Mochi."
    ]


def test_the_llm_rewrites_descriptions_and_forget_erases_them() -> None:
    reply = json.dumps([{"name": "Sam", "kind": "person", "description": "Alice's partner; joins her in Chicago."}])
    config = {"llm": {"default": {"backend": "fake", "params": {"replies": [reply]}}}}
    with App(config=config, overrides=FAST) as app:
        entities = entities_of(app, SAMPLE[40:46])
        calls = app.backend("llm").calls
        app.run_coroutine(app.vector_store().forget("demo", "alice"))
        left = stored(app)
    sam = next(e for e in entities if e["name"] == "Sam")
    assert (sam["kind"], sam["description"]) == ("person", "Alice's partner; joins her in Chicago.")
    assert len(calls) == 1 and "Sam is flying out on Friday" in calls[0].messages[-1].content
    assert left == []


def test_an_unusable_llm_reply_falls_back_to_the_rules_with_a_warning() -> None:
    config = {"llm": {"default": {"backend": "fake", "params": {"replies": ["not json"]}}}}
    with App(config=config, overrides=FAST) as app:
        response = app.run_sync("personal_entities", user_id="alice", workspace_id="demo", messages=SAMPLE[4:5])
    assert any("no usable entity descriptions" in w for w in response.warnings)
    assert {e["name"] for e in response.outputs["entities"]} >= {"Sam", "Mochi", "Oakland"}
