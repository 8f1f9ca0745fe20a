"""Sessions kept by the caller's turns (``app.memories.add_to_session`` / ``pop_from_session``): messages of any
role appended as given, the oldest flushed to long-term memory like a chat turn's, the newest taken back out."""

from __future__ import annotations

import pytest

from flowmem import App
from flowmem.core.errors import InputError
from flowmem.schema.memory import Message

FAST = ["embedding_model.default.backend=hash", "llm.default.backend=none", "vector_store.default.backend=memory"]
SMALL = [
    "op.short_term_memory_op.params.chat_history_token_ratio=0.5",
    "op.short_term_memory_op.params.token_flush_size=20",
]


def test_messages_of_any_role_are_kept_as_given_and_popped_newest_first() -> None:
    with App(overrides=FAST) as app:
        mem = app.memories.sync
        messages = [
            Message(role="user", name="alice", content="Book me a table for two", metadata={"item": {"n": 1}}),
            Message(role="tool", content="search_restaurants() -> Jade Harbor", metadata={"item": {"n": 2}}),
            Message(role="assistant", name="assistant", content="Booked Jade Harbor at 8."),
        ]
        result = mem.add_to_session("s1", messages, user_id="alice")
        assert result.flushed is None and result.memories == [] and result.messages == []
        stored = mem.session("s1", user_id="alice").messages
        assert [(m.role, m.content, m.metadata) for m in stored] == [(m.role, m.content, m.metadata) for m in messages]
        popped = mem.pop_from_session("s1", user_id="alice")
        assert popped is not None and popped.content == "Booked Jade Harbor at 8."
        assert [m.content for m in mem.session("s1", user_id="alice").messages] == [m.content for m in messages[:2]]
        assert mem.pop_from_session("nobody", user_id="alice") is None
        mem.pop_from_session("s1", user_id="alice")
        mem.pop_from_session("s1", user_id="alice")
        assert mem.pop_from_session("s1", user_id="alice") is None


def test_a_full_window_flushes_the_users_messages_to_long_term_memory() -> None:
    with App(overrides=[*FAST, *SMALL]) as app:
        mem = app.memories.sync
        said = ["My dog is called Rex.", "I work as a nurse at the city hospital.", "I play the cello on Sundays."]
        flushed = 0
        for text in said:
            turn = [Message(role="user", name="alice", content=text), Message(role="assistant", content="Noted!")]
            result = mem.add_to_session("s1", turn, user_id="alice", token_limit=100)
            flushed += result.flushed_messages
        assert flushed > 0
        remembered = " ".join(m.content for m in mem.list(user_id="alice", limit=None).memories)
        assert "Rex" in remembered and "Noted" not in remembered  # the assistant's words are not the user's facts
        window = mem.session("s1", user_id="alice")
        assert window.flushed == flushed and window.messages[-1].content == "Noted!"


def test_nothing_to_add_is_refused() -> None:
    with App(overrides=FAST) as app, pytest.raises(InputError, match="messages"):
        app.memories.sync.add_to_session("s1", [], user_id="alice")
