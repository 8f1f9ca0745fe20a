"""Forget wins: writes racing a forget (or a delete) never bring back what it erased, on local and Elasticsearch.

Each race is forced, not hoped for: a hook pauses the racing write after its reads and before its write
(:func:`paused`), the delete or forget runs whole meanwhile, then the write goes on. The same races also run
unforced, with the forget started after a random delay (``TRIALS`` per race), so other interleavings happen too.
After each trial nothing of the forgotten user may be readable by any call: memories (get, list, search),
history (as events holding their text), the message ledger and chat sessions (:func:`leftovers`).

On Elasticsearch the same races run between two store objects (two server processes), the write held before
or inside the store's write (:func:`test_a_forget_from_another_process`).
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from flowmem.app import App
from flowmem.core.errors import NotFoundError, WriteConflictError
from flowmem.memories import Memories
from flowmem.schema.memory import Memory, Message
from tests.integration.conftest import delete_store_indices

TRIALS = 6  # unforced trials per race and store, each with its own random delay
STORES = ["local", pytest.param("elasticsearch", marks=pytest.mark.elasticsearch)]
SECRET = "Milan"  # what the forgotten user said: it must be nowhere afterwards


@pytest.fixture(params=STORES)
def overrides(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    base = ["embedding_model.default.backend=hash", "llm.default.backend=none"]
    if request.param == "local":
        yield [*base, f"vector_store.default.params.directory={tmp_path}"]
        return
    es_url = request.getfixturevalue("es_url")
    index = f"flowmem-test-races-{uuid.uuid4().hex[:10]}"
    yield [
        *base, "vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts={es_url}",
        f"vector_store.default.params.index={index}",
    ]  # fmt: skip
    delete_store_indices(es_url, index)


@asynccontextmanager
async def opened(overrides: list[str]) -> AsyncIterator[Memories]:
    app = App(overrides=overrides)
    try:
        yield app.memories
    finally:
        await app.aclose()


class Pause:
    """Holds the first wrapped call of a store until :meth:`release` (later calls pass: the delete or forget
    racing it may use the same method); :attr:`reached` is set when that first call arrives."""

    def __init__(self) -> None:
        self.reached, self.go = asyncio.Event(), asyncio.Event()

    def wrap(self, target: Any, name: str) -> None:
        real = getattr(target, name)

        async def held(*args: Any, **kwargs: Any) -> Any:
            if not self.reached.is_set():
                self.reached.set()
                await self.go.wait()
            return await real(*args, **kwargs)

        setattr(target, name, held)

    def release(self) -> None:
        self.go.set()


def said(user: str, *texts: str, at: int = 1) -> list[Message]:
    return [
        Message(message_id=f"{user}-{at}-{i}", role="user", name=user, content=text,
                time_created=datetime(2024, 3, at, 9 + i))
        for i, text in enumerate(texts)
    ]  # fmt: skip


async def leftovers(mem: Memories, ws: str, user: str, ids: list[str]) -> list[str]:
    """Everything of ``user`` any call can still read (empty when the forget won)."""
    found = []
    page = await mem.list(workspace_id=ws, user_id=user, limit=None)
    found += [f"memory {m.memory_id}: {m.content}" for m in page.memories]
    found += [f"get {m.memory_id}" for m in await mem.get_many(ids, workspace_id=ws)]
    hits = await mem.search("where do I live?", user_id=user, workspace_id=ws)
    found += [f"search {m.memory_id}" for m in hits.memories if m.target == user]
    for event in await mem.history(workspace_id=ws):
        if user in event.targets or SECRET in event.model_dump_json():
            found.append(f"history {event.event} of {event.memory_id}")
    store = mem.store
    found += [
        f"ledger {m}" for m in await store.memorized(ws, user, [f"{user}-{d}-{i}" for d in (1, 2) for i in range(3)])
    ]
    if await store.get_session(ws, user, "s1") is not None:
        found.append("session s1")
    return found


Race = Callable[[Memories, str, list[str]], Awaitable[Any]]


async def run_race(mem: Memories, ws: str, race: Race, ids: list[str], *, forced: bool, delay: float = 0.0) -> Any:
    """Run ``race`` (the write) beside a forget of alice; forced: the write is held between its reads and its write."""
    pause = Pause()
    if forced:
        pause.wrap(mem.store, "write")
        pause.wrap(mem.store, "put_session")
    task = asyncio.ensure_future(race(mem, ws, ids))
    if forced:
        await asyncio.wait([asyncio.ensure_future(pause.reached.wait()), task], return_when=asyncio.FIRST_COMPLETED)
    else:
        await asyncio.sleep(delay)
    await mem.forget(workspace_id=ws, user_id="alice")
    pause.release()
    try:
        return await task
    except (NotFoundError, WriteConflictError) as exc:
        return exc


async def update(mem: Memories, ws: str, ids: list[str]) -> Any:
    return await mem.update(ids[0], f"I live in {SECRET}, near the Duomo", workspace_id=ws)


async def add_expiring(mem: Memories, ws: str, ids: list[str]) -> Any:
    return await mem.add(said("alice", "I live in Turin now", at=2), user_id="alice", workspace_id=ws)


async def import_(mem: Memories, ws: str, ids: list[str]) -> Any:
    [old] = await mem.get_many(ids[:1], workspace_id=ws)
    again = Memory(workspace_id=ws, memory_id=old.memory_id, target="alice", content=f"I lived in {SECRET}")
    return await mem.import_([again], workspace_id=ws)


async def context_turn(mem: Memories, ws: str, ids: list[str]) -> Any:
    # A budget this small flushes the window at once: the turn writes the session, then the flush writes memories.
    return await mem.context(
        f"I grew up in {SECRET}", user_id="alice", session_id="s1", workspace_id=ws, token_limit=16
    )


RACES: dict[str, Race] = {"update": update, "add": add_expiring, "import": import_, "session flush": context_turn}


async def seeded(mem: Memories) -> tuple[str, list[str]]:
    ws = f"ws-{uuid.uuid4().hex[:10]}"
    added = await mem.add(said("alice", f"I live in {SECRET}"), user_id="alice", workspace_id=ws)
    await mem.add(text="I live in Oslo", user_id="bob", workspace_id=ws)
    return ws, added.memory_ids


@pytest.mark.parametrize("race", list(RACES))
def test_forget_wins_against_a_racing_write(overrides: list[str], race: str) -> None:
    async def main() -> list[str]:
        problems: list[str] = []
        rng = random.Random(race)
        async with opened(overrides) as mem:
            for trial in range(TRIALS + 1):
                ws, ids = await seeded(mem)
                forced = trial == 0
                outcome = await run_race(mem, ws, RACES[race], ids, forced=forced, delay=rng.uniform(0, 0.05))
                if forced and not isinstance(outcome, (NotFoundError, WriteConflictError)):
                    problems.append(f"forced {race}: the write was not refused ({outcome!r})")
                problems += [f"{race} trial {trial}: {left}" for left in await leftovers(mem, ws, "alice", ids)]
                bob = await mem.list(workspace_id=ws, user_id="bob")
                if bob.total != 1:
                    problems.append(f"{race} trial {trial}: bob has {bob.total} memories, not 1")
        return problems

    assert asyncio.run(main()) == []


def test_an_update_racing_a_delete_does_not_bring_it_back(overrides: list[str]) -> None:
    async def main() -> None:
        async with opened(overrides) as mem:
            ws, ids = await seeded(mem)
            pause = Pause()
            pause.wrap(mem.store, "write")
            task = asyncio.ensure_future(mem.update(ids[0], "I live in Rome", workspace_id=ws))
            await asyncio.wait_for(pause.reached.wait(), 30)
            assert await mem.delete(ids, workspace_id=ws) == ids
            pause.release()
            with pytest.raises(NotFoundError, match="no memory"):
                await task
            assert await mem.get_many(ids, workspace_id=ws) == []
            kinds = [e.event for e in await mem.history(ids[0], workspace_id=ws)]
            assert kinds == ["add", "delete"]

    asyncio.run(main())


def test_a_write_after_the_forget_answered_is_stored(overrides: list[str]) -> None:
    """The fence refuses only writes prepared before the forget: the user may start again afterwards."""

    async def main() -> None:
        async with opened(overrides) as mem:
            ws, _ = await seeded(mem)
            await mem.forget(workspace_id=ws, user_id="alice")
            added = await mem.add(text="I live in Bergen", user_id="alice", workspace_id=ws)
            [memory] = await mem.get_many(added.memory_ids, workspace_id=ws)
            assert memory.content == "I live in Bergen"
            assert (await mem.update(memory.memory_id, "I live in Tromsø", workspace_id=ws)).content.endswith("Tromsø")

    asyncio.run(main())


@pytest.mark.elasticsearch
@pytest.mark.parametrize("held", ["before its write", "inside its write"])
def test_a_forget_from_another_process(es_url: str, held: str) -> None:
    """Two store objects on one index (two servers): no shared lock, only the fences and the write intents.

    Held before its write, the write records its intent after the other's forget looked for intents, so its
    first fence check refuses it. Held inside its write (intent recorded, first check passed), the forget waits
    for it; once the write goes on, its second check erases what it wrote, and only then does the forget answer:
    nothing is readable at that moment, nor later."""
    index = f"flowmem-test-races-{uuid.uuid4().hex[:10]}"
    overrides = [
        "embedding_model.default.backend=hash", "llm.default.backend=none",
        "vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts={es_url}",
        f"vector_store.default.params.index={index}",
    ]  # fmt: skip

    async def main() -> None:
        async with opened(overrides) as writer, opened(overrides) as other:
            for race in (update, add_expiring, import_):
                ws, ids = await seeded(writer)
                pause = Pause()
                pause.wrap(writer.store, "write" if held == "before its write" else "_steps")
                task = asyncio.ensure_future(race(writer, ws, ids))
                await pause.reached.wait()
                forget = asyncio.ensure_future(other.forget(workspace_id=ws, user_id="alice"))
                if held == "inside its write":
                    # Once the forget has advanced the fence it looks for intents, finds the held write's, and waits.
                    # (Waiting a fixed time instead let a slow machine release the write before the forget began:
                    # the write then ended first, a legitimate order that proves nothing.)
                    deadline = asyncio.get_running_loop().time() + 30
                    while (await writer.store.fence(ws, ["alice"])).generations["alice"] == 0:
                        assert asyncio.get_running_loop().time() < deadline, "the forget never advanced the fence"
                        await asyncio.sleep(0.02)
                    await asyncio.sleep(0.3)
                    assert not forget.done(), "the forget answered while a write it had to wait for was under way"
                else:
                    await forget
                pause.release()
                await forget
                assert await leftovers(other, ws, "alice", ids) == [], race.__name__  # the moment it answered
                with pytest.raises((NotFoundError, WriteConflictError)):
                    await task
                assert await leftovers(other, ws, "alice", ids) == [], race.__name__
                assert await leftovers(writer, ws, "alice", ids) == [], race.__name__

    try:
        asyncio.run(main())
    finally:
        delete_store_indices(es_url, index)
