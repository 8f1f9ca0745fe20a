"""Issue 15: insights consolidated from observations (fake LLM), linked to them, refreshed when a source changes."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from flowmem import App
from flowmem.schema.memory import Memory
from tests.unit.ops.conftest import FAST, mem, put

T0 = datetime(2024, 5, 1, 9, 0)
OBSERVATIONS = [
    mem("hike-tam", "Alice hikes Mount Tam with her sister Grace.", memory_type="observation", source=["m1"],
        created_at=T0, updated_at=T0),
    mem("hike-sur", "Alice did a short hike in Big Sur with no knee pain.", memory_type="observation", source=["m2"],
        created_at=T0 + timedelta(days=1), updated_at=T0 + timedelta(days=1)),
    mem("hike-love", "Alice says hiking is her favourite thing in the world.", memory_type="observation",
        source=["m3"], created_at=T0 + timedelta(days=2), updated_at=T0 + timedelta(days=2)),
    mem("home", "Alice lives in Oakland.", memory_type="observation", source=["m4"],
        created_at=T0 + timedelta(days=3), updated_at=T0 + timedelta(days=3)),
]  # fmt: skip
HIKER = "Alice is an avid hiker who plans weekends around trails near home."


def app_with(replies: list[Any] | None) -> App:
    config: dict[str, Any] = {}
    if replies is not None:
        config["llm"] = {"default": {"backend": "fake", "params": {"replies": [json.dumps(r) for r in replies]}}}
    app = App(config=config, overrides=FAST)
    put(app, OBSERVATIONS)
    return app


def insight(app: App, **inputs: Any) -> Any:
    return app.run_sync("personal_insight", user_id="alice", timestamp=T0 + timedelta(days=10), **inputs)


def insights(app: App) -> list[Memory]:
    async def collect() -> list[Memory]:
        return [m async for batch in app.vector_store().iterate("default") for m in batch if m.memory_type == "insight"]

    return app.run_coroutine(collect())


def test_an_insight_is_linked_to_the_observations_it_rests_on() -> None:
    reply = [{"content": HIKER, "sources": [0, 1, 2], "when_to_use": "Planning weekends.", "keywords": ["hiking"]},
             {"content": "Too thin to stand.", "sources": [0, 1]}]  # fmt: skip
    with app_with([reply]) as app:
        response = insight(app)
        stored = insights(app)
        prompt = app.backend("llm").calls[0].messages
    assert [(a.action, a.memory.content) for a in response.outputs["insight_actions"]] == [("add", HIKER)]
    (made,) = stored
    assert made.status == "valid" and made.target == "alice" and made.when_to_use == "Planning weekends."
    assert made.metadata["insight_sources"] == {"hike-tam": "2024-05-01T09:00:00", "hike-sur": "2024-05-02T09:00:00",
                                                "hike-love": "2024-05-03T09:00:00"}  # fmt: skip
    assert made.source == ["m1", "m2", "m3"]  # the sources' messages: deleting one reaches the insight too
    assert "at least 3" in prompt[0].content and "3. [2024-05-04] Alice lives in Oakland." in prompt[-1].content


def test_an_updated_source_expires_the_insight_and_it_is_recomputed() -> None:
    again = [{"content": HIKER, "sources": [0, 1, 2]}]
    with app_with([again, [], again]) as app:
        first = insight(app).outputs["insight_actions"][0].memory
        unchanged = insight(app).outputs["insight_actions"]  # nothing changed: kept, and the LLM has nothing new
        app.memories.sync.update("hike-sur", "Alice did a long hike in Big Sur with no knee pain.")
        actions = insight(app).outputs["insight_actions"]
        stored = {m.memory_id: m for m in insights(app)}
    assert unchanged == []
    assert [a.action for a in actions] == ["expire", "add"]
    assert actions[0].memory.memory_id == first.memory_id
    assert stored[first.memory_id].status == "expired"
    assert stored[first.memory_id].metadata["expired_because"].startswith("source hike-sur was updated")
    new = actions[1].memory
    assert new.memory_id != first.memory_id and stored[new.memory_id].status == "valid"
    assert new.metadata["insight_sources"]["hike-sur"] != first.metadata["insight_sources"]["hike-sur"]


def test_a_source_expired_by_the_write_path_expires_the_insight_even_without_an_llm(tmp_path: Path) -> None:
    on_disk = ["vector_store.default.backend=local", f"vector_store.default.params.directory={tmp_path}"]
    reply = json.dumps([{"content": "Alice enjoys hiking near her Oakland home.", "sources": [0, 2, 3]}])
    config = {"llm": {"default": {"backend": "fake", "params": {"replies": [reply]}}}}
    with App(config=config, overrides=[*FAST, *on_disk]) as app:
        put(app, OBSERVATIONS)
        made = insight(app).outputs["insight_actions"][0].memory
    with App(overrides=[*FAST, *on_disk]) as app:  # no LLM from here on
        moved = mem("moved", "I moved to Lisbon.", memory_type="conversation", created_at=T0 + timedelta(days=5))
        decided = app.run_sync("personal_add", user_id="alice", messages=[], new_memories=[moved])
        response = insight(app)
        stored = {m.memory_id: m for m in insights(app)}
    assert ("expire", "home") in {(a.action, a.memory.memory_id) for a in decided.outputs["memory_actions"]}
    assert [(a.action, a.memory.memory_id) for a in response.outputs["insight_actions"]] == [("expire", made.memory_id)]
    assert stored[made.memory_id].metadata["expired_because"] == "source home expired"
    assert any("insights need an LLM" in w for w in response.warnings)
