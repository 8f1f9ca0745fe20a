"""The memory service's contract: every verb of ``app.memories``, on any store.

Reuse it by subclassing and saying which store the app uses (config overrides)::

    from flowmem.testing.memory_service import MemoryServiceContract

    class TestOnMyStore(MemoryServiceContract):
        def store_overrides(self) -> list[str]:
            return ["vector_store.default.backend=my_store", "vector_store.default.params.url=..."]

Each test opens an app with the ``hash`` embedding model and no LLM (fast, deterministic), works
in a fresh workspace, and closes the app.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

import pytest

from flowmem.app import App
from flowmem.core.errors import InputError, NotFoundError
from flowmem.memories import SyncMemories
from flowmem.schema.memory import Message


def chat(user: str, *texts: str, prefix: str = "m") -> list[Message]:
    """``texts`` as ``user``'s messages ``m1``, ``m2``, … one hour apart on 2024-03-04."""
    return [
        Message(message_id=f"{prefix}{i}", role="user", name=user, content=text,
                time_created=datetime(2024, 3, 4, 9 + i))
        for i, text in enumerate(texts, 1)
    ]  # fmt: skip


class MemoryServiceContract:
    """Subclass and implement :meth:`store_overrides`."""

    def store_overrides(self) -> list[str]:
        raise NotImplementedError

    @contextmanager
    def memories(self) -> Iterator[tuple[SyncMemories, str]]:
        overrides = ["embedding_model.default.backend=hash", "llm.default.backend=none", *self.store_overrides()]
        with App(overrides=overrides) as app:
            yield app.memories.sync, f"ws-{uuid.uuid4().hex[:12]}"

    # -- the whole life of a memory --------------------------------------------------------------
    def test_add_search_update_history_delete(self) -> None:
        with self.memories() as (mem, ws):
            added = mem.add(text="My dog is called Rex", user_id="alice", workspace_id=ws)
            assert added.counts["add"] == 1
            [memory_id] = added.memory_ids
            found = mem.search("what is my dog called?", user_id="alice", workspace_id=ws)
            assert [m.memory_id for m in found.memories][:1] == [memory_id]
            assert found.memories[0].scores  # every factor kept

            updated = mem.update(memory_id, "My dog is called Rex, a beagle", workspace_id=ws)
            assert updated.content == "My dog is called Rex, a beagle"
            assert mem.get(memory_id, workspace_id=ws).content == updated.content
            again = mem.search("is my dog a beagle?", user_id="alice", workspace_id=ws)
            assert again.memories[0].content == updated.content  # re-embedded and searchable as edited

            history = mem.history(memory_id, workspace_id=ws)
            assert [e.event for e in history] == ["add", "update"]
            assert history[1].old is not None and history[1].new is not None
            assert history[1].old["content"] == "My dog is called Rex"
            assert history[1].new["content"] == updated.content

            assert mem.delete(memory_id, workspace_id=ws) == [memory_id]
            with pytest.raises(NotFoundError):
                mem.get(memory_id, workspace_id=ws)
            assert [e.event for e in mem.history(memory_id, workspace_id=ws)] == ["add", "update", "delete"]
            assert mem.search("what is my dog called?", user_id="alice", workspace_id=ws).memories == []

    def test_add_text_twice_adds_once_and_a_newer_fact_expires_the_old(self) -> None:
        with self.memories() as (mem, ws):
            mem.add(text="I live in Milan", user_id="alice", workspace_id=ws, timestamp=datetime(2024, 1, 1))
            assert mem.add(text="I live in Milan", user_id="alice", workspace_id=ws).counts["add"] == 0
            moved = mem.add(text="I live in Turin", user_id="alice", workspace_id=ws, timestamp=datetime(2024, 2, 1))
            assert moved.counts == {"expire": 1, "add": 1}
            page = mem.list(workspace_id=ws, user_id="alice")
            assert page.total == 2
            assert {m.content: m.status for m in page.memories} == {"I live in Milan": "expired",
                                                                     "I live in Turin": "valid"}  # fmt: skip

    def test_add_messages_twice_adds_nothing_the_second_time(self) -> None:
        with self.memories() as (mem, ws):
            messages = chat("alice", "I started a new job at Acme today", "My sister Grace lives in Oslo")
            first = mem.add(messages, user_id="alice", workspace_id=ws)
            assert first.messages == 2 and first.counts["add"] >= 1
            second = mem.add(messages, user_id="alice", workspace_id=ws)
            assert second.already_memorized == 2 and second.actions == []

    def test_list_pages_and_total(self) -> None:
        with self.memories() as (mem, ws):
            for i, animal in enumerate(("cats", "dogs", "birds", "fish", "frogs")):
                when = datetime(2024, 1, 1 + i)
                mem.add(text=f"fact number {i} about {animal}", user_id="bob", workspace_id=ws, timestamp=when)
            first = mem.list(workspace_id=ws, limit=2)
            second = mem.list(workspace_id=ws, limit=2, offset=first.next_offset or 0)
            last = mem.list(workspace_id=ws, limit=2, offset=4)
            assert (first.total, len(first.memories), first.next_offset) == (5, 2, 2)
            assert [m.content for m in second.memories] == ["fact number 2 about birds", "fact number 3 about fish"]
            assert (len(last.memories), last.next_offset) == (1, None)
            with pytest.raises(InputError):
                mem.list(workspace_id=ws, limit=0)

    def test_delete_by_source_message_is_the_users_own(self) -> None:
        with self.memories() as (mem, ws):
            mem.add(chat("alice", "I adopted a cat named Miso"), user_id="alice", workspace_id=ws)
            mem.add(chat("bob", "I adopted a parrot named Kiwi"), user_id="bob", workspace_id=ws)
            gone = mem.delete(source_message="m1", user_id="alice", workspace_id=ws)
            assert len(gone) == 1
            assert mem.list(workspace_id=ws, user_id="alice").total == 0
            assert mem.list(workspace_id=ws, user_id="bob").total == 1

    def test_a_user_scoped_call_refuses_other_users_memories(self) -> None:
        # `flowmem mcp -u alice` passes user_id: a memory id of bob's (predictable from its message id)
        # is no memory to her, exactly like a missing one, so nothing confirms it exists.
        with self.memories() as (mem, ws):
            [mine] = mem.add(text="My dog is called Rex", user_id="alice", workspace_id=ws).memory_ids
            [theirs] = mem.add(text="My cat is called Tom", user_id="bob", workspace_id=ws).memory_ids
            missing = f"no memory with id '{theirs}' in workspace '{ws}'"
            with pytest.raises(NotFoundError, match=missing):
                mem.get(theirs, workspace_id=ws, user_id="alice")
            with pytest.raises(NotFoundError, match=missing):
                mem.update(theirs, "My cat is called Jerry", workspace_id=ws, user_id="alice")
            assert [m.memory_id for m in mem.get_many([theirs, mine], workspace_id=ws, user_id="alice")] == [mine]
            assert mem.delete(theirs, workspace_id=ws, user_id="alice") == []
            assert mem.history(theirs, workspace_id=ws, user_id="alice") == []
            assert {e.memory_id for e in mem.history(workspace_id=ws, user_id="alice")} == {mine}
            assert mem.get(theirs, workspace_id=ws).content == "My cat is called Tom"  # bob's is untouched
            assert [e.event for e in mem.history(theirs, workspace_id=ws)] == ["add"]
            # her own memories answer as before
            assert mem.update(mine, "My dog is Rex", workspace_id=ws, user_id="alice").content == "My dog is Rex"
            assert [e.event for e in mem.history(mine, workspace_id=ws, user_id="alice")] == ["add", "update"]
            assert mem.delete(mine, workspace_id=ws, user_id="alice") == [mine]

    def test_ids_beyond_the_id_rule_are_refused_on_reads_too(self) -> None:
        huge = "w" * 900_000
        rule = r"is 900000 characters long; an id is 1 to 256 characters, none of them a control character"
        with self.memories() as (mem, ws):
            for call in (
                lambda: mem.search("tea?", user_id="alice", workspace_id=huge),
                lambda: mem.search("tea?", user_id=huge, workspace_id=ws),
                lambda: mem.list(workspace_id=huge),
                lambda: mem.list(workspace_id=ws, user_id=huge),
                lambda: mem.get("m1", workspace_id=huge),
                lambda: mem.history(workspace_id=huge),
                lambda: mem.stats(workspace_id=huge),
                lambda: mem.session("s1", user_id="alice", workspace_id=huge),
                lambda: mem.session(huge, user_id="alice", workspace_id=ws),
                lambda: mem.add(text="I like tea", user_id="alice", workspace_id=huge),
            ):
                with pytest.raises(InputError, match=rule):
                    call()

    # -- forgetting ------------------------------------------------------------------------------
    def test_forget_a_user_leaves_nothing_of_theirs_and_everything_of_others(self) -> None:
        with self.memories() as (mem, ws):
            mem.add(chat("alice", "My salary is 250k", "I live in Lisbon"), user_id="alice", workspace_id=ws)
            mem.add(chat("bob", "I live in Porto", "My cat is called Tom"), user_id="bob", workspace_id=ws)
            deleted = mem.list(workspace_id=ws, user_id="alice").memories[0].memory_id
            mem.delete(deleted, workspace_id=ws)  # its history must go too
            bob_before = mem.list(workspace_id=ws, user_id="bob")

            preview = mem.forget(workspace_id=ws, user_id="alice", dry_run=True)
            assert preview.memories >= 1 and mem.list(workspace_id=ws, user_id="alice").total == preview.memories
            done = mem.forget(workspace_id=ws, user_id="alice")
            assert (done.memories, done.messages) == (preview.memories, preview.messages)

            assert mem.list(workspace_id=ws, user_id="alice").total == 0
            assert mem.search("what is my salary?", user_id="alice", workspace_id=ws).memories == []
            assert mem.history(deleted, workspace_id=ws) == []
            texts = " ".join(str(e.old) + str(e.new) for e in mem.history(workspace_id=ws))
            assert "salary" not in texts and "Lisbon" not in texts
            # Her messages are no longer memorized: sending them again stores them again.
            assert mem.add(chat("alice", "My salary is 250k"), user_id="alice", workspace_id=ws).messages == 1

            bob_after = mem.list(workspace_id=ws, user_id="bob")
            assert [m.memory_id for m in bob_after.memories] == [m.memory_id for m in bob_before.memories]
            assert all(mem.history(m.memory_id, workspace_id=ws) for m in bob_after.memories)
            assert mem.add(chat("bob", "I live in Porto"), user_id="bob", workspace_id=ws).already_memorized == 1
            assert mem.forget(workspace_id=ws, user_id="nobody").memories == 0

    def test_forget_a_workspace(self) -> None:
        with self.memories() as (mem, ws):
            other = f"{ws}-other"
            mem.add(text="I like tea", user_id="alice", workspace_id=ws)
            mem.add(text="I like coffee", user_id="alice", workspace_id=other)
            done = mem.forget(workspace_id=ws)
            assert done.memories == 1 and done.history >= 1
            assert mem.list(workspace_id=ws).total == 0 and mem.history(workspace_id=ws) == []
            assert mem.list(workspace_id=other).total == 1

    # -- chat sessions (short-term memory) -----------------------------------------------------------
    def test_a_chat_session_flushes_through_the_write_flow_and_is_forgotten(self) -> None:
        turns = ["I moved to Lisbon in May.", "My dog is called Rex.", "I work as a nurse.", "I hate figs."]
        with self.memories() as (mem, ws):
            results = [
                mem.context(text, user_id="alice", session_id="s1", workspace_id=ws, token_limit=40) for text in turns
            ]
            assert any(r.flushed_messages for r in results) and "Lisbon" in results[-1].summary
            stored = mem.session("s1", user_id="alice", workspace_id=ws)
            assert stored.messages[-1].content == turns[-1] and stored.flushed >= 1
            assert any("Lisbon" in m.content for m in mem.list(workspace_id=ws, user_id="alice").memories)
            mem.context("bob's turn", user_id="bob", session_id="s1", workspace_id=ws)
            assert mem.forget(workspace_id=ws, user_id="alice").sessions == 1
            with pytest.raises(NotFoundError):
                mem.session("s1", user_id="alice", workspace_id=ws)
            assert mem.session("s1", user_id="bob", workspace_id=ws).messages

    # -- mistakes ---------------------------------------------------------------------------------
    def test_mistakes_are_input_errors(self) -> None:
        with self.memories() as (mem, ws):
            for call in (
                lambda: mem.add(text="x", user_id="", workspace_id=ws),
                lambda: mem.add(text="x", user_id="alice", workspace_id=""),
                lambda: mem.add(user_id="alice", workspace_id=ws),
                lambda: mem.add([], text="x", user_id="alice", workspace_id=ws),
                lambda: mem.add(text="   ", user_id="alice", workspace_id=ws),
                lambda: mem.update("nope", "   ", workspace_id=ws),
                lambda: mem.delete(workspace_id=ws),
            ):
                with pytest.raises(InputError):
                    call()
            with pytest.raises(NotFoundError):
                mem.update("nope", "new text", workspace_id=ws)
