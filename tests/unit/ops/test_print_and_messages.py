"""print_memory_op and read_message_op, and the flows that use them."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from flowmem.core.errors import InputError
from flowmem.keys import CONTEXT_MESSAGES, RECENT_MESSAGES
from tests.unit.cli.test_cli import run_cli
from tests.unit.ops.conftest import FAST, NOW, Maker, mem, put, run


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
    # alice's own (name "Alice" too), never a reply that merely mentions her
    assert [m.content for m in response.outputs["context_messages"]] == ["second", "newest"]
    assert [m.memory_id for m in response.memories] == ["m1"]
    # read_message_op's key is recent_messages (list[Message]); the flow returns it as context_messages, as always
    assert response.output(RECENT_MESSAGES) is response.outputs["context_messages"]
    assert response.output(CONTEXT_MESSAGES) is None  # chat_context's {role, content} dicts, not these
    [wire] = response.to_dict()["outputs"]["context_messages"][1:]
    assert set(wire) >= {"message_id", "role", "name", "content", "time_created", "memorized"}
    assert (wire["name"], wire["content"]) == ("Alice", "newest")


SHARED_CHAT = [
    {"role": "user", "name": "bob", "content": "My salary is 250k", "time_created": NOW - timedelta(hours=2)},
    {"role": "user", "name": "alice", "content": "Bob told me about Alice's party", "time_created": NOW},
    {"role": "user", "name": " Alice ", "content": "I prefer tea", "time_created": NOW},
    {"role": "user", "name": "", "content": "nobody's", "time_created": NOW},
    {"role": "user", "name": "alicia", "content": "I'm Alicia", "time_created": NOW},
]


def test_personal_context_matches_the_user_exactly_never_a_substring(make_app: Maker) -> None:
    app = make_app()

    def context(user: str) -> list[str]:
        response = run(app, "personal_context", query="salary", messages=SHARED_CHAT, user_id=user)
        return sorted(m.content for m in response.outputs["context_messages"])

    assert context("al") == []  # "al" is in "salary", "alice" and "alicia": none of them is al's
    assert context("alice") == ["Bob told me about Alice's party", "I prefer tea"]
    assert context("ALICE") == context("alice")  # names come from transcripts: case and spaces do not matter
    assert context("bob") == ["My salary is 250k"]  # mentioned in Alice's message, it is still Alice's


def test_personal_context_refuses_an_empty_user(make_app: Maker, capsys: pytest.CaptureFixture[str]) -> None:
    app = make_app()
    for user in ("", "   "):
        with pytest.raises(InputError, match=r"input 'user_id': .*is not a user id"):
            run(app, "personal_context", query="salary", messages=SHARED_CHAT, user_id=user)
    chat = "messages=[{role: user, name: bob, content: My salary is 250k}]"
    code, out, err = run_cli(capsys, "run", "personal_context", "-q", "salary", "-u", "", "--input", chat, *FAST)
    assert code == 2 and out == "", err
    assert err.startswith("flowmem: error: ") and "is not a user id" in err and "250k" not in err
    assert "Traceback" not in err
