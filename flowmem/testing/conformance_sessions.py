"""Part of the vector store conformance suite: chat sessions (short-term memory) kept per
(workspace, user, session), written with optimistic versioning, and erased by ``forget``.

:class:`~flowmem.testing.conformance.VectorStoreConformance` includes these tests, so every store runs them.
"""

from __future__ import annotations

import pytest

from flowmem.core.errors import InputError
from flowmem.schema.memory import Message
from flowmem.schema.session import ChatSession
from flowmem.testing.store_harness import StoreHarness, memory
from flowmem.vector_store.base import ScopeError, VectorStore
from flowmem.vector_store.sessions import SessionConflictError


def session(workspace: str, user: str, session_id: str = "s1", *texts: str) -> ChatSession:
    """A new session (version 0, as read when none is stored) holding ``texts`` as user messages."""
    messages = [Message(message_id=f"m{i}", role="user", name=user, content=t) for i, t in enumerate(texts)]
    return ChatSession(workspace_id=workspace, user_id=user, session_id=session_id, messages=messages)


class SessionConformance(StoreHarness):
    """Chat sessions (mixed into the whole suite)."""

    def test_session_round_trip_and_versions(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            assert await store.get_session(ws, "alice", "s1") is None
            first = session(ws, "alice", "s1", "I moved to Lisbon.", "我喜欢喝茶").next_version(summary="")
            await store.put_session(first)
            got = await store.get_session(ws, "alice", "s1")
            assert got is not None and got.model_dump() == first.model_dump() and got.version == 1
            second = got.next_version(messages=got.messages[1:], summary="- I moved to Lisbon.", flushed=1)
            await store.put_session(second)
            again = await store.get_session(ws, "alice", "s1")
            assert again is not None and again.version == 2 and again.flushed == 1
            assert [m.content for m in again.messages] == ["我喜欢喝茶"] and again.summary == "- I moved to Lisbon."

        self.run_case(case)

    def test_a_write_from_a_stale_read_is_refused(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            read = session(ws, "alice", "s1")  # both callers read "no session" (version 0)
            await store.put_session(read.next_version(summary="first"))
            with pytest.raises(SessionConflictError, match="another call"):
                await store.put_session(read.next_version(summary="second"))
            stored = await store.get_session(ws, "alice", "s1")
            assert stored is not None and stored.summary == "first" and stored.version == 1
            with pytest.raises(SessionConflictError):  # skipping a version is refused too
                await store.put_session(stored.next_version().next_version())
            with pytest.raises(SessionConflictError, match="version 1 or more"):
                await store.put_session(read)

        self.run_case(case)

    def test_sessions_are_scoped_by_workspace_and_user(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, other = self.workspace(), self.workspace()
            await store.put_session(session(ws, "alice", "s1", "alice's").next_version())
            await store.put_session(session(ws, "bob", "s1", "bob's").next_version())  # same session id, other user
            await store.put_session(session(other, "alice", "s1", "elsewhere").next_version())
            for where, user, text in ((ws, "alice", "alice's"), (ws, "bob", "bob's"), (other, "alice", "elsewhere")):
                got = await store.get_session(where, user, "s1")
                assert got is not None and [m.content for m in got.messages] == [text]
            assert await store.get_session(ws, "carol", "s1") is None
            assert await store.delete_session(ws, "alice", "s1") is True
            assert await store.delete_session(ws, "alice", "s1") is False
            assert await store.get_session(ws, "alice", "s1") is None
            assert await store.get_session(ws, "bob", "s1") is not None
            assert await store.get_session(other, "alice", "s1") is not None
            for call in (
                store.get_session("", "alice", "s1"),
                store.get_session(ws, "", "s1"),
                store.get_session(ws, "alice", " "),
                store.delete_session(ws, "  ", "s1"),
            ):
                with pytest.raises(ScopeError):
                    await call
            with pytest.raises(ScopeError):
                await store.put_session(session(ws, "", "s1").next_version())
            with pytest.raises(InputError, match="session id"):
                await store.put_session(session(ws, "alice", "bad\nid").next_version())

        self.run_case(case)

    def test_forget_erases_the_users_sessions(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, other = self.workspace(), self.workspace()
            await store.upsert(ws, [memory(ws, "m1", 1, target="alice")])
            for sid in ("s1", "s2"):
                await store.put_session(session(ws, "alice", sid, "hi").next_version())
            await store.put_session(session(ws, "bob", "s1", "hi").next_version())
            await store.put_session(session(other, "alice", "s1", "hi").next_version())
            preview = await store.forget(ws, "alice", dry_run=True)
            assert preview == {"memories": 1, "messages": 0, "history": 0, "sessions": 2}
            assert await store.get_session(ws, "alice", "s1") is not None  # a dry run changes nothing
            assert await store.forget(ws, "alice") == preview
            assert await store.get_session(ws, "alice", "s1") is None
            assert await store.get_session(ws, "alice", "s2") is None
            assert await store.get_session(ws, "bob", "s1") is not None
            assert await store.get_session(other, "alice", "s1") is not None
            # a forgotten user starts afresh: version 1 again
            await store.put_session(session(ws, "alice", "s1", "new").next_version())
            assert (await store.forget(ws))["sessions"] == 2  # the whole workspace: alice's new one and bob's
            assert await store.get_session(ws, "bob", "s1") is None
            assert await store.get_session(other, "alice", "s1") is not None

        self.run_case(case)
