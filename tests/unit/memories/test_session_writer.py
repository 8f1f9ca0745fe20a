"""One writer of a chat session and of the message ledger (issue 25 point 2).

A session is changed only by the store's session writes (:class:`~flowmem.vector_store.sessions.SessionStore`:
``append_to_session`` for ``short_term_memory_op``, ``trim_session`` and ``pop_from_session`` for the memory
service, ``delete_session`` for a clear), and the ledger only by ``store.write(memorized=...)`` of
``update_vector_store_op``. :func:`raw_writes` finds any other call of the primitives (a second writer with its own
rules); the HTTP routes are checked against what the op alone stores; a clear waits for a turn under way.
"""

from __future__ import annotations

import ast
import asyncio
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from flowmem.app import App
from flowmem.core.errors import NotFoundError
from flowmem.schema.memory import Message
from flowmem.server.app import create_app

REPO = Path(__file__).resolve().parents[3]
FAST = ["embedding_model.default.backend=hash", "llm.default.backend=none", "vector_store.default.backend=memory"]
SMALL = [
    "op.short_term_memory_op.params.chat_history_token_ratio=0.5",
    "op.short_term_memory_op.params.token_flush_size=20",
]

# The primitives that write a session or the ledger, and the only modules allowed to call them outside the store
# (flowmem/vector_store) and the store's conformance suite (flowmem/testing).
PRIMITIVES = {
    "put_session": set(),
    "_put_session": set(),
    "_change_session": set(),
    "delete_session": {"flowmem/memories/chat.py"},  # a clear: the service says when; the store deletes
    "_delete_session": set(),
    "_mark_memorized": set(),
    "memorized=": {"ops/update_vector_store_op.py"},  # store.write(..., memorized=ids): the ledger's one writer
}


def raw_writes(root: Path) -> list[str]:
    """``file:line: call`` of every call of a session or ledger primitive by a module not allowed to make it."""
    found = []
    for top in ("flowmem", "ops"):
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(("flowmem/vector_store/", "flowmem/testing/")):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                names = [node.func.attr] if isinstance(node.func, ast.Attribute) else []
                names += [f"{k.arg}=" for k in node.keywords if k.arg == "memorized"]
                found += [f"{rel}:{node.lineno}: {name}" for name in names if rel not in PRIMITIVES.get(name, {rel})]
    return found


def test_a_session_and_the_ledger_have_one_writer() -> None:
    assert raw_writes(REPO) == []


def test_a_second_writer_is_found(tmp_path: Path) -> None:
    planted = {
        "flowmem/memories/chat.py": "async def trim(core, s):\n    await core.store.put_session(s)\n",
        "flowmem/server/routes.py": "async def clear(store):\n    await store.delete_session('w', 'u', 's')\n",
        "ops/some_op.py": "async def run(store):\n    await store.write('w', user_id='u', memorized=['m1'])\n",
        "ops/short_term_memory_op.py": "async def run(store, s):\n    await store._put_session(s, None)\n",
        "flowmem/vector_store/local/store.py": "async def put(self, s):\n    await self._put_session(s, None)\n",
    }
    for rel, text in planted.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    assert raw_writes(tmp_path) == [
        "flowmem/memories/chat.py:2: put_session",
        "flowmem/server/routes.py:2: delete_session",
        "ops/short_term_memory_op.py:2: _put_session",
        "ops/some_op.py:2: memorized=",
    ]


def said(*texts: str, at: int = 0) -> list[Message]:
    return [
        Message(message_id=f"m{at + i}", role="user" if i % 2 == 0 else "assistant",
                name="alice" if i % 2 == 0 else "assistant", content=text, time_created=datetime(2024, 3, 1, 9, at + i))
        for i, text in enumerate(texts)
    ]  # fmt: skip


FIRST = said("My dog is called Rex.", "Noted!", "I work as a nurse at the city hospital.")
SECOND = said("I play the cello on Sundays and I sing in a choir.", "Lovely.", at=3)


def _dumped(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.model_dump(mode="json") for m in messages]


def test_the_session_routes_store_what_the_op_decides() -> None:
    """Append (a flush included), pop and clear over HTTP against ``session_append`` run alone: the stored window is
    the op's window, the trim takes exactly what the op flushed, each write is one version."""

    async def op_path() -> tuple[dict[str, Any], dict[str, Any]]:
        async with App(overrides=[*FAST, *SMALL, "op.short_term_memory_op.params.token_limit=100"]) as app:
            run: dict[str, Any] = {"user_id": "alice", "session_id": "s1"}
            await app.run("session_append", session_messages=FIRST, **run)
            response = await app.run("session_append", session_messages=SECOND, **run)
            stored = await app.memories.session("s1", user_id="alice")
            return response.outputs, stored.model_dump(mode="json")

    async def http_path() -> list[Any]:
        async with App(overrides=[*FAST, *SMALL]) as app:
            transport = httpx.ASGITransport(app=create_app(app))
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as http:
                where, seen = {"user_id": "alice"}, []
                for turn in (FIRST, SECOND):
                    body = {"messages": _dumped(turn), "token_limit": 100, **where}
                    answer = await http.post("/v1/sessions/s1/messages", json=body)
                    seen.append((await http.get("/v1/sessions/s1", params=where)).json())
                seen.append(answer.json())
                seen.append((await http.delete("/v1/sessions/s1/messages/last", params=where)).json())
                seen.append((await http.get("/v1/sessions/s1", params=where)).json())
                seen.append((await http.delete("/v1/sessions/s1", params=where)).status_code)
                seen.append((await http.get("/v1/sessions/s1", params=where)).status_code)
                await http.post("/v1/sessions/s1/messages", json={"messages": _dumped(FIRST), **where})
                seen.append((await http.get("/v1/sessions/s1", params=where)).json())
                return seen

    outputs, op_stored = asyncio.run(op_path())
    after_first, after_second, answer, popped, after_pop, cleared, gone, again = asyncio.run(http_path())
    flush = outputs["session_flush"]
    assert flush is not None and flush.messages, "the second append should flush (a small window)"
    window = _dumped(outputs["chat_history"])
    # the op stored the whole window (the flush pending); the service's trim took out what the op flushed
    assert op_stored["messages"] == _dumped([*FIRST, *SECOND]) and op_stored["version"] == 2
    assert after_first["messages"] == _dumped(FIRST) and after_first["version"] == 1
    assert after_second["messages"] == window and after_second["summary"] == outputs["summary"] == flush.summary
    assert after_second["flushed"] == len(flush.messages) == answer["flushed_messages"]
    assert after_second["version"] == 3  # the append, then the trim
    assert popped["message"] == window[-1]
    assert after_pop["messages"] == window[:-1] and after_pop["version"] == 4
    assert after_pop["summary"] == flush.summary and after_pop["flushed"] == len(flush.messages)
    assert (cleared, gone) == (200, 404)
    assert again["messages"] == _dumped(FIRST) and again["version"] == 1 and again["flushed"] == 0


def test_a_clear_waits_for_the_turn_under_way() -> None:
    """A clear while an append is between reading and storing the session: it takes what the append stores (it
    waits for the turn), rather than answering "no such session" and leaving the append's messages behind."""

    async def race() -> None:
        async with App(overrides=FAST) as app:
            mem, store = app.memories, app.memories.store
            reached, go = asyncio.Event(), asyncio.Event()
            real = store.put_session

            async def held(*args: Any, **kwargs: Any) -> None:
                reached.set()
                await go.wait()
                await real(*args, **kwargs)

            store.put_session = held  # type: ignore[method-assign]
            append = asyncio.ensure_future(mem.add_to_session("s1", FIRST, user_id="alice"))
            await asyncio.wait_for(reached.wait(), 10)
            clear = asyncio.ensure_future(mem.clear_session("s1", user_id="alice"))
            await asyncio.sleep(0.05)
            assert not clear.done(), "the clear ran while the append was under way"
            go.set()
            await append
            assert await clear is True
            store.put_session = real  # type: ignore[method-assign]
            try:
                await mem.session("s1", user_id="alice")
            except NotFoundError:
                return
            raise AssertionError("the appended messages outlived the clear")

    asyncio.run(race())


def test_appends_and_clears_at_once_leave_whole_writes() -> None:
    """Unforced: appends and clears gathered in every order leave either no session or whole appends, each
    write one version on the last."""

    async def run() -> None:
        async with App(overrides=FAST) as app:
            mem = app.memories
            for order in range(6):
                calls = [mem.add_to_session("s1", FIRST, user_id="alice"), mem.clear_session("s1", user_id="alice"),
                         mem.add_to_session("s1", SECOND, user_id="alice")]  # fmt: skip
                calls = calls[order % 3 :] + calls[: order % 3]
                await asyncio.gather(*calls)
                try:
                    stored = await mem.session("s1", user_id="alice")
                except NotFoundError:
                    continue
                contents = [m.content for m in stored.messages]
                turns = [[m.content for m in FIRST], [m.content for m in SECOND]]
                assert contents in (turns[0], turns[1], turns[0] + turns[1], turns[1] + turns[0]), contents
                assert stored.version == len([t for t in turns if t[0] in contents])
                await mem.clear_session("s1", user_id="alice")

    asyncio.run(run())
