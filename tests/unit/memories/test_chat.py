"""Chat turns with short-term memory (``app.memories.context``, ``short_term_memory_op``): FIFO under a token
budget, the flush at the ratio through the write flow, nothing lost when that write fails, concurrent turns."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from flowmem.ops.short_term_memory_op import first_sentence

import flowmem.testing.fake_llm  # noqa: F401  (registers the fake LLM)
from flowmem import App
from flowmem.core.errors import FlowValidationError, InputError, NotFoundError
from flowmem.core.tokens import message_tokens

FAST = ["embedding_model.default.backend=hash", "llm.default.backend=none"]
MEMORY = ["vector_store.default.backend=memory"]
FACTS = [
    "I moved to Lisbon in May. The flat is small.",
    "My dog is called Rex.",
    "I work as a nurse at the city hospital.",
    "I am allergic to peanuts.",
    "My sister Ana lives in Porto.",
    "I play the cello on Sundays.",
    "I drive a blue Fiat.",
    "My birthday is on 3 March.",
]


def tokens(*texts: str, role: str = "user") -> int:
    return sum(message_tokens({"role": role, "content": t}) for t in texts)


def test_fifo_under_the_budget_and_the_flush_at_the_ratio() -> None:
    limit, ratio, flush = 120, 0.5, 30
    budget = int(limit * ratio)
    params = [f"op.short_term_memory_op.params.chat_history_token_ratio={ratio}",
              f"op.short_term_memory_op.params.token_flush_size={flush}"]  # fmt: skip
    with App(overrides=[*FAST, *MEMORY, *params]) as app:
        mem = app.memories.sync
        window: list[str] = []
        flushed_at = None
        for turn, text in enumerate(FACTS):
            result = mem.context(text, user_id="alice", session_id="s1", token_limit=limit)
            window.append(text)
            if tokens(*window) <= budget:  # FIFO: everything kept while it fits
                assert result.flushed_messages == 0 and result.flushed is None
                assert [m.content for m in result.chat_history] == window
                continue
            flushed_at = turn
            gone, window = window[: result.flushed_messages], window[result.flushed_messages :]
            assert [m.content for m in result.chat_history] == window  # the oldest left, the newest stayed
            assert window[-1] == text and tokens(*window) <= budget
            assert tokens(*gone) >= flush  # at least token_flush_size
            assert tokens(*gone[:-1]) < flush or tokens(gone[-1], *window) > budget  # and no more than needed
            # through the write flow: the facts are long-term memories now, and the ledger knows the messages
            assert result.flushed is not None and result.flushed.messages == len(gone)
            remembered = " ".join(m.content for m in mem.list(user_id="alice", limit=None).memories)
            assert "Rex" in remembered
            # the offline summary: each flushed message's first sentence, said as what it is
            assert result.summary.splitlines()[: len(gone)] == [f"- {t.split('. ')[0].rstrip('.')}." for t in gone]
            assert "flat is small" not in result.summary
            notes = {span.op: span.notes for span in result.response.trace.spans}
            assert "extractive" in notes["short_term_memory_op"]["summary"]
            break
        assert flushed_at is not None, "the window never crossed the ratio"
        stored = mem.session("s1", user_id="alice")
        assert [m.content for m in stored.messages] == window and stored.flushed == len(FACTS[: flushed_at + 1]) - len(
            window
        )
        assert stored.summary == result.summary


def test_a_failed_flush_write_loses_no_message(tmp_path: Path) -> None:
    store = ["vector_store.default.backend=local", f"vector_store.default.params.directory={tmp_path}"]
    small = ["op.short_term_memory_op.params.token_flush_size=10"]
    # the write flow cannot run: the flush's write fails before anything is written
    broken = ["flow.personal_summary.flow_content=info_filter_op >> no_such_op"]
    with App(overrides=[*FAST, *store, *small, *broken]) as app:
        mem = app.memories.sync
        for text in FACTS[:3]:
            with contextlib.suppress(FlowValidationError):  # from the turn that flushes on
                mem.context(text, user_id="alice", session_id="s1", token_limit=60)
        stored = mem.session("s1", user_id="alice")
        assert [m.content for m in stored.messages] == FACTS[:3]  # nothing left the window
        assert stored.summary == "" and stored.flushed == 0
    with App(overrides=[*FAST, *store, *small]) as app:  # fixed, on the same store file: the next turn flushes
        mem = app.memories.sync
        result = mem.context(FACTS[3], user_id="alice", session_id="s1", token_limit=60)
        assert result.flushed_messages >= 1 and "Lisbon" in result.summary
        stored = mem.session("s1", user_id="alice")
        assert FACTS[0] not in [m.content for m in stored.messages] and stored.messages[-1].content == FACTS[3]
        assert any("Lisbon" in m.content for m in mem.list(user_id="alice", limit=None).memories)


def test_concurrent_turns_of_one_session_keep_both_messages(tmp_path: Path) -> None:
    store = ["vector_store.default.backend=local", f"vector_store.default.params.directory={tmp_path}"]
    with App(overrides=[*FAST, *store]) as app:

        async def both() -> None:
            await asyncio.gather(*(app.memories.context(t, user_id="alice", session_id="s1") for t in FACTS[:4]))

        app.run_coroutine(both())
        stored = app.memories.sync.session("s1", user_id="alice")
        assert sorted(m.content for m in stored.messages) == sorted(FACTS[:4]) and stored.version == 4


def test_the_reply_and_an_llm_summary() -> None:
    llm = {"llm": {"default": {"backend": "fake", "params": {"by_prompt": {"running summary": "Alice lives in Lisbon."},
                                                             "replies": ["{}"]}}}}  # fmt: skip
    with App(config=llm, overrides=[*MEMORY, "embedding_model.default.backend=hash"]) as app:
        mem = app.memories.sync
        mem.context(FACTS[0], user_id="alice", session_id="s1", token_limit=40)
        result = mem.context(FACTS[1], user_id="alice", session_id="s1", token_limit=40, reply="Welcome to Lisbon!")
        assert result.flushed_messages >= 1 and result.summary == "Alice lives in Lisbon."
        roles = [m.role for m in mem.session("s1", user_id="alice").messages]
        assert roles[-1] == "user"
        calls = app.backend("llm").calls  # type: ignore[attr-defined]
        assert any("running summary" in c.messages[0].content for c in calls)


def test_sessions_are_per_user_and_clear_forgets_one() -> None:
    with App(overrides=[*FAST, *MEMORY]) as app:
        mem = app.memories.sync
        mem.context("alice's", user_id="alice", session_id="s1")
        mem.context("bob's", user_id="bob", session_id="s1")
        assert [m.content for m in mem.session("s1", user_id="bob").messages] == ["bob's"]
        assert mem.clear_session("s1", user_id="alice") is True and mem.clear_session("s1", user_id="alice") is False
        with pytest.raises(NotFoundError, match="no chat session 's1' of user 'alice'"):
            mem.session("s1", user_id="alice")
        assert mem.session("s1", user_id="bob").messages
        assert mem.forget(workspace_id="default", user_id="bob").sessions == 1


@pytest.mark.parametrize(
    ("kwargs", "where"),
    [({"message": " "}, "message"), ({"session_id": ""}, "session_id"), ({"user_id": " "}, "user_id"),
     ({"token_limit": 0}, "token_limit")],
)  # fmt: skip
def test_bad_turns_are_refused_before_anything_is_stored(kwargs: dict[str, object], where: str) -> None:
    with App(overrides=[*FAST, *MEMORY]) as app:
        call: dict[str, object] = {"message": "hi", "user_id": "alice", "session_id": "s1", **kwargs}
        with pytest.raises(InputError, match=where):
            app.memories.sync.context(**call)  # type: ignore[arg-type]
        with pytest.raises(NotFoundError):
            app.memories.sync.session("s1", user_id="alice")


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Hi! I'm planning a trip to Japan. It is in April.", "I'm planning a trip to Japan."),
        ("Hi!", "Hi!"),
        ("My dog is called Rex", "My dog is called Rex"),
        ("好！我下个月搬到里斯本。我很开心", "我下个月搬到里斯本"),
        ("Line one has words\nline two", "Line one has words"),
    ],
)
def test_the_extractive_summary_takes_the_first_sentence_that_says_something(text: str, first: str) -> None:
    assert first_sentence(text) == first


def test_a_flow_holding_the_session_op_is_a_write() -> None:
    from flowmem.memories.flows import writes_memories

    with App(overrides=[*FAST, *MEMORY, "flow.just_the_window.flow_content=short_term_memory_op"]) as app:
        assert writes_memories(app, "just_the_window")  # so a read-only API key may not run it
