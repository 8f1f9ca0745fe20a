"""``RemoteApp`` against a real ``flowmem serve`` subprocess: the memory service's calls over HTTP return flowmem's
own objects, and every error answer is flowmem's own exception with the server's message."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from flowmem.core.errors import BackendUnavailableError, InputError, NotFoundError
from flowmem.integrations.remote import RemoteApp
from flowmem.schema.memory import Memory, Message
from flowmem.server.auth import AuthError
from flowmem.server.responses import AddResponse, ContextResponse
from flowmem.testing.serve_process import free_port
from tests.unit.integrations import FAST, SMALL
from tests.unit.integrations.conftest import ServerPool


@pytest.fixture
def remote(server_pool: ServerPool) -> Iterator[RemoteApp]:
    with server_pool.lend([*FAST, *SMALL]) as opened:
        yield opened


def test_the_memory_service_over_http(remote: RemoteApp) -> None:
    memories = remote.memories.sync
    added = memories.add(text="I moved to Lisbon in March", user_id="alice")
    assert isinstance(added, AddResponse) and added.counts == {"add": 1}
    memory_id = added.actions[0].memory_id
    got = memories.get(memory_id)
    assert isinstance(got, Memory) and got.content == "I moved to Lisbon in March" and got.target == "alice"
    [found] = memories.search("where do I live?", user_id="alice").memories
    assert found.memory_id == memory_id and found.scores["final"] > 0  # a Memory with its score factors
    memories.update(memory_id, "I moved to Porto in March")
    assert [e.event for e in memories.history(memory_id)] == ["add", "update"]
    assert memories.get_many([memory_id, "nope"]) == [memories.get(memory_id)]
    copy = got.model_copy(update={"memory_id": "copied-1", "metadata": {"mine": {"kept": [1, 2]}}})
    counts = memories.import_([copy])
    assert (counts.added["default"], counts.updated["default"]) == (1, 0)
    assert memories.get("copied-1").metadata["mine"] == {"kept": [1, 2]}  # metadata travels exactly
    assert sorted(m.memory_id for m in memories.export(user_id="alice")) == sorted([memory_id, "copied-1"])
    page = memories.list(user_id="alice", limit=1)
    assert (len(page.memories), page.total, page.next_offset) == (1, 2, 1)
    many = [got.model_copy(update={"memory_id": f"many-{i}", "content": f"fact {i}"}) for i in range(19)]
    assert memories.import_(many).added["default"] == 19
    asked = [f"many-{i}" for i in reversed(range(19))]
    assert [m.memory_id for m in memories.get_many([*asked[:9], "nope", *asked[9:]])] == asked  # in order, 8 at once
    assert memories.delete(asked) == asked
    assert memories.delete([memory_id, "nope"], reason="gone (test)") == [memory_id]
    assert memories.history(memory_id)[-1].reason == "gone (test)"
    assert memories.forget(user_id="alice").memories == 1


def test_sessions_over_http(remote: RemoteApp) -> None:
    memories = remote.memories.sync
    said = [Message(role="user", name="alice", content=f"Fact {i}: I keep bees on my roof in Lisbon.")
            for i in range(6)]  # fmt: skip
    appended = memories.add_to_session("s1", said, user_id="alice", token_limit=60)
    assert isinstance(appended, ContextResponse) and appended.flushed_messages > 0  # the window flushed
    session = memories.session("s1", user_id="alice")
    assert session.flushed == appended.flushed_messages and session.messages[-1] == said[-1]
    assert memories.pop_from_session("s1", user_id="alice") == said[-1]
    assert memories.clear_session("s1", user_id="alice") is True
    assert memories.clear_session("s1", user_id="alice") is False
    assert memories.pop_from_session("s1", user_id="alice") is None
    turn = memories.context("Where do I keep bees?", user_id="alice", session_id="s2")
    assert any("bees" in m.content for m in turn.memories)


def test_errors_are_flowmems_own_with_the_servers_message(remote: RemoteApp, server_pool: ServerPool) -> None:
    memories = remote.memories.sync
    with pytest.raises(InputError, match="text: is empty") as empty:
        memories.add(text=" ", user_id="alice")
    assert empty.value.problems[0].where == "text"
    with pytest.raises(NotFoundError, match="no memory with id 'nope'"):
        memories.get("nope")
    with pytest.raises(InputError, match="top_k"):
        memories.search("q", user_id="alice", top_k=0)
    with pytest.raises(InputError, match="'personal_add' writes memories; search runs a read-only flow"):
        memories.search("q", user_id="alice", flow="personal_add")
    with pytest.raises(NotFoundError, match="personal_retrieve"):  # an unknown flow: the valid names
        memories.search("q", user_id="alice", flow="personal_retreive")
    with pytest.raises(NotFoundError, match="no chat session"):
        memories.session("none", user_id="alice")
    wrong = RemoteApp(remote.url, api_key="not-the-key-0123456789")
    with pytest.raises(AuthError) as refused:
        wrong.memories.sync.get("nope")
    assert refused.value.status == 401
    wrong.close()
    with RemoteApp(f"http://127.0.0.1:{free_port()}") as nobody, pytest.raises(BackendUnavailableError, match="reach"):
        nobody.memories.sync.search("q", user_id="alice")


def test_async_calls_and_sync_calls_inside_a_loop(remote: RemoteApp) -> None:
    async def main() -> None:
        await remote.memories.add(text="I play the cello", user_id="bob")
        assert [m.content async for m in remote.memories.export(user_id="bob")] == ["I play the cello"]
        with pytest.raises(Exception, match="cannot run inside an event loop"):
            remote.memories.sync.list(user_id="bob")
        await remote.aclose()

    asyncio.run(main())
