"""Issue 15: ``entity`` memories (an entity's rolling description) are neither recalled nor compared with new facts."""

from __future__ import annotations

from tests.unit.ops.conftest import Maker, ids, mem, put, run


def test_retrieval_does_not_recall_entity_descriptions(make_app: Maker) -> None:
    app = make_app()
    put(app, [
        mem("fact", "Alice lives in Oakland with her cat Mochi."),
        mem("ent", "Mochi (pet): Alice's cat. I live in Oakland with my cat Mochi.", memory_type="entity"),
    ])  # fmt: skip
    found = ids(run(app, query="Mochi the cat in Oakland"))
    assert found == ["fact"]


def test_a_new_fact_worded_like_an_entity_description_is_still_added(make_app: Maker) -> None:
    app = make_app()
    put(app, [mem("ent", "I live in Oakland with my cat Mochi.", memory_type="entity")])
    response = app.run_sync(
        "personal_add", user_id="alice", messages=[], new_memories=[mem("new", "I live in Oakland with my cat Mochi.")]
    )
    assert [(a.action, a.memory.memory_id) for a in response.outputs["memory_actions"]] == [("add", "new")]
