"""print_memory_op and read_message_op, and the flows that use them."""

from __future__ import annotations

from datetime import datetime, timedelta

from tests.unit.ops.conftest import NOW, Maker, mem, put, run


def test_personal_print_formats_for_people(make_app: Maker) -> None:
    app = make_app()
    put(app, [mem("m1", "Alice is allergic to shellfish", when_to_use="when suggesting food",
                  memory_type="obs_customized", said=datetime(2024, 3, 1, 9), metadata={"pinned": True})])  # fmt: skip
    answer = run(app, "personal_print", query="food allergies").answer
    assert answer.splitlines() == [
        "1. [2024-03-01 09:00:00 Friday] Alice is allergic to shellfish",
        "   when to use: when suggesting food",
        "   type: obs_customized · about: alice",
        '   metadata: {"pinned": true}',
    ]


def test_personal_context_returns_recent_unmemorized_messages(make_app: Maker) -> None:
    app = make_app("op.read_message_op.params.contextual_msg_max_count=2")
    put(app, [mem("m1", "Alice lives in Berkeley")])
    base = NOW - timedelta(hours=3)
    messages = [
        {"role": "user", "name": "alice", "content": "first", "time_created": base},
        {"role": "user", "name": "alice", "content": "already memorized", "time_created": base, "memorized": True},
        {"role": "assistant", "name": "assistant", "content": "Hi Alice, noted.",
         "time_created": base + timedelta(minutes=3)},
        {"role": "user", "name": "bob", "content": "unrelated", "time_created": base + timedelta(minutes=4)},
        {"role": "user", "name": "Alice", "content": "newest", "time_created": base + timedelta(minutes=5)},
        {"role": "user", "name": "alice", "content": "second", "time_created": base + timedelta(minutes=1)},
    ]  # fmt: skip
    response = run(app, "personal_context", query="Alice lives in which city, Berkeley?", messages=messages)
    assert [m.content for m in response.outputs["context_messages"]] == ["Hi Alice, noted.", "newest"]
    assert [m.memory_id for m in response.memories] == ["m1"]
