"""Write intents on Elasticsearch (es_guard): a writer removes its intent only as it recorded it, and reads its
fence again when it cannot (a forget marked it, or it is gone) or when it comes to it late. And a write that
failed part-way (its intent removed, what it stored unrefreshed) is erased by a forget after it.

Two store objects on one index (two servers), the write held inside the store's write (intent recorded, first
check passed) while the other's forget runs: afterwards nothing of the forgotten user is readable, and the write
that raced it is refused.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest

from flowmem.core.errors import WriteConflictError
from flowmem.vector_store.elasticsearch import guard as es_guard
from tests.integration.conftest import SCHEDULED_REFRESH_GONE, delete_store_indices
from tests.integration.test_forget_races import SECRET, Pause, leftovers, opened, said

pytestmark = pytest.mark.elasticsearch


def es_overrides(es_url: str, index: str) -> list[str]:
    return [
        "embedding_model.default.backend=hash", "llm.default.backend=none",
        "vector_store.default.backend=elasticsearch", f"vector_store.default.params.hosts={es_url}",
        f"vector_store.default.params.index={index}",
    ]  # fmt: skip


async def _race(es_url: str, index: str, before_forget: Any = None) -> tuple[Any, list[str]]:
    """alice's add held inside its write while another store object forgets alice (``before_forget(index)`` run
    first); returns what the add answered (its result or its error) and what of alice is readable afterwards."""
    async with opened(es_overrides(es_url, index)) as writer, opened(es_overrides(es_url, index)) as other:
        ws = f"ws-{uuid.uuid4().hex[:10]}"
        await writer.add(text="I live in Oslo", user_id="bob", workspace_id=ws)
        pause = Pause()
        pause.wrap(writer.store, "_steps")
        task = asyncio.ensure_future(writer.add(text=f"I grew up in {SECRET}", user_id="alice", workspace_id=ws))
        await asyncio.wait_for(pause.reached.wait(), 30)
        if before_forget is not None:
            await before_forget(index)
        forget = asyncio.ensure_future(other.forget(workspace_id=ws, user_id="alice"))
        deadline = asyncio.get_running_loop().time() + 30
        while (await writer.store.fence(ws, ["alice"])).generations["alice"] == 0:  # the forget has begun
            assert asyncio.get_running_loop().time() < deadline, "the forget never advanced the fence"
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)
        pause.release()
        try:
            outcome: Any = await task
        except WriteConflictError as exc:
            outcome = exc
        await forget
        return outcome, await leftovers(other, ws, "alice", [])


def _refused(es_url: str, before_forget: Any = None) -> None:
    """Run :func:`_race` on an index of its own: the add is refused, nothing of alice is left."""
    index = f"flowmem-test-intents-{uuid.uuid4().hex[:10]}"
    try:
        outcome, left = asyncio.run(_race(es_url, index, before_forget))
    finally:
        delete_store_indices(es_url, index)
    assert isinstance(outcome, WriteConflictError), outcome
    assert left == []


def test_a_marked_intent_refuses_the_write(es_url: str) -> None:
    """The forget marks the intent it waits for: the write's removal is refused (409), it checks its fence, erases
    what it wrote and is refused; the forget then erases the rest."""
    _refused(es_url)


def test_a_write_whose_intent_is_gone_reads_its_fence_again(es_url: str) -> None:
    """The intent lost (as a node's unsynced translog loses it): the forget finds none to wait for and answers; the
    write's removal finds nothing (409), so it checks its fence, erases what it wrote and is refused."""

    async def lose_the_intents(index: str) -> None:
        intents = f"{index}{es_guard.INTENTS_SUFFIX}"
        async with httpx.AsyncClient(base_url=es_url) as http:
            (await http.post(f"/{intents}/_refresh")).raise_for_status()
            hits = (await http.post(f"/{intents}/_search", json={"size": 100})).json()["hits"]["hits"]
            assert hits, "the held write recorded its intent"
            for hit in hits:
                (await http.delete(f"/{intents}/_doc/{hit['_id']}")).raise_for_status()

    _refused(es_url, lose_the_intents)


def test_a_forget_that_does_not_mark_intents_is_met_by_a_late_writer(es_url: str, monkeypatch: Any) -> None:
    """A forget that does not mark the intents it waits for (a version from before marking) and a write that removes
    its intent RECHECK_AFTER or more after recording it (here at once): the write reads its fence again, so it is
    refused and erases what it wrote, as when its intent is marked."""

    async def no_mark(store: Any, intents: list[str]) -> None:
        return None

    monkeypatch.setattr(es_guard, "_mark", no_mark)
    monkeypatch.setattr(es_guard, "RECHECK_AFTER", 0.0)
    _refused(es_url)


def test_a_write_that_failed_part_way_is_erased_by_a_forget_after_it(es_url: str) -> None:
    """A write whose last step (the ledger) failed stored its memory and event and removed its intent, without the
    refresh a write ends with; the index's scheduled refresh off, the memory is readable by id only. The forget
    makes it searchable first, so it erases it."""
    index = f"flowmem-test-intents-{uuid.uuid4().hex[:10]}"

    async def main() -> list[str]:
        async with opened(es_overrides(es_url, index)) as mem:
            ws = f"ws-{uuid.uuid4().hex[:10]}"
            await mem.add(said("bob", "I live in Oslo"), user_id="bob", workspace_id=ws)  # makes every index
            async with httpx.AsyncClient(base_url=es_url) as http:
                settings = {"index": {"refresh_interval": "-1"}}
                (await http.put(f"/{index}/_settings", json=settings)).raise_for_status()
            await asyncio.sleep(SCHEDULED_REFRESH_GONE)
            written: list[str] = []
            write = mem.store.write

            async def recorded(workspace_id: str, memories: Any = (), **kwargs: Any) -> int:
                written.extend(m.memory_id for m in memories)
                return await write(workspace_id, memories, **kwargs)

            async def refused(*args: Any) -> None:
                raise RuntimeError("the ledger's node went away")

            mem.store.write = recorded  # type: ignore[method-assign]
            mem.store._mark_memorized = refused  # type: ignore[method-assign]
            with pytest.raises(Exception, match="went away"):
                await mem.add(said("alice", f"I live in {SECRET}"), user_id="alice", workspace_id=ws)
            assert [m.content for m in await mem.get_many(written, workspace_id=ws)] == [f"I live in {SECRET}"]
            assert (await mem.list(workspace_id=ws, user_id="alice")).total == 0, "not searchable yet"
            await mem.forget(workspace_id=ws, user_id="alice")
            return await leftovers(mem, ws, "alice", written)

    try:
        assert asyncio.run(main()) == []
    finally:
        delete_store_indices(es_url, index)
