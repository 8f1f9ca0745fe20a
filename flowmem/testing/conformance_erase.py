"""Part of the vector store conformance suite: deletes inside :meth:`VectorStore.write`, and
:meth:`VectorStore.forget` (a user's or a workspace's share erased, nothing else touched).

:class:`~flowmem.testing.conformance.VectorStoreConformance` includes these tests, so every store
runs them; this module only keeps the suite's files small.
"""

from __future__ import annotations

import numpy as np
import pytest

from flowmem.core.errors import InputError
from flowmem.schema.history import HistoryEvent
from flowmem.testing.store_harness import StoreHarness, memory, unit
from flowmem.vector_store.base import DimensionMismatchError, ScopeError, VectorStore
from flowmem.vector_store.filters import MemoryFilter

NOTHING = {"memories": 0, "messages": 0, "history": 0, "sessions": 0}


class EraseConformance(StoreHarness):
    """Deletes committed with their history, and erasure (mixed into the whole suite)."""

    # -- deletes inside write --------------------------------------------------------------------
    def test_delete_inside_write_with_its_history_event(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, other = self.workspace(), self.workspace()
            keep, gone = memory(ws, "keep", 1, target="alice"), memory(ws, "gone", 2, target="alice")
            added = [HistoryEvent.of("add", new=keep), HistoryEvent.of("add", new=gone)]
            await store.write(ws, [keep, gone], history=added)
            assert {m.memory_id for m in await store.search(ws, unit(2), 5)} == {"keep", "gone"}  # index loaded
            event = HistoryEvent.of("delete", old=gone, reason="deleted")
            assert await store.write(ws, history=[event], deleted=["gone", "never-there", "gone"]) == 1
            assert await store.get(ws, ["gone"]) == []
            assert [m.memory_id for m in await store.search(ws, unit(2), 5)] == ["keep"]
            assert await store.count(ws) == 1
            assert [m.memory_id async for batch in store.iterate(ws) for m in batch] == ["keep"]
            assert [e.event for e in await store.history(ws, "gone")] == ["add", "delete"]
            # a rerun (as after a crash between the steps of a store without transactions) changes nothing
            assert await store.write(ws, history=[event], deleted=["gone"]) == 0
            assert len(await store.history(ws, "gone")) == 2
            # another workspace's delete of the same id touches nothing here
            assert await store.write(other, deleted=["keep"]) == 0
            assert await store.count(ws) == 1
            # delete() is a write of deletes alone
            assert await store.delete(ws, ["keep", "gone"]) == 1
            assert await store.count(ws) == 0

        self.run_case(case)

    def test_write_of_memories_deletes_and_messages_together(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            old = memory(ws, "old", 1, target="alice")
            await store.write(ws, [old], history=[HistoryEvent.of("add", new=old)])
            await store.search(ws, unit(1), 1)  # a loaded index must follow both changes
            new = memory(ws, "new", 3, target="alice", source=["msg-9"])
            events = [HistoryEvent.of("add", new=new), HistoryEvent.of("delete", old=old, reason="replaced")]
            existed = await store.write(
                ws, [new], history=events, deleted=["old"], user_id="alice", memorized=["msg-9"]
            )
            assert existed == 1
            assert [m.memory_id for m in await store.search(ws, unit(1), 5)] == ["new"]
            assert [e.event for e in await store.history(ws)] == ["add", "add", "delete"]
            assert await store.memorized(ws, "alice", ["msg-9"]) == {"msg-9"}

        self.run_case(case)

    def test_a_refused_write_deletes_nothing(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            keep = memory(ws, "keep", 1)
            await store.upsert(ws, [keep])
            changed = keep.model_copy(update={"content": "changed"})
            with pytest.raises(InputError, match="both written and deleted in one write"):
                await store.write(ws, [changed], deleted=["keep"])
            wide = memory(ws, "wide", 2).model_copy(update={"vector": np.ones(len(unit(0)) + 4, dtype=np.float32)})
            with pytest.raises(DimensionMismatchError):
                await store.write(ws, [wide], history=[HistoryEvent.of("delete", old=keep)], deleted=["keep"])
            [got] = await store.get(ws, ["keep"])
            assert got.content == "memory keep"
            assert await store.count(ws) == 1 and await store.history(ws) == []

        self.run_case(case)

    # -- forget ----------------------------------------------------------------------------------
    async def two_users(self, store: VectorStore, ws: str) -> None:
        """alice: a1 (stored) and a2 (deleted, its history kept), ledger m1 m2; bob: b1, ledger m1."""
        a1 = memory(ws, "a1", 1, target="alice", content="alice earns 250k", source=["m1"])
        a2 = memory(ws, "a2", 2, target="alice", content="alice lives in Lisbon", source=["m2"])
        b1 = memory(ws, "b1", 3, target="bob", content="bob lives in Porto", source=["m1"])
        added = [HistoryEvent.of("add", new=a1), HistoryEvent.of("add", new=a2)]
        await store.write(ws, [a1, a2], history=added, user_id="alice", memorized=["m1", "m2"])
        await store.write(ws, [b1], history=[HistoryEvent.of("add", new=b1)], user_id="bob", memorized=["m1"])
        await store.write(ws, history=[HistoryEvent.of("delete", old=a2)], deleted=["a2"])

    def test_forget_a_user_leaves_nothing_of_theirs_and_everything_of_others(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, other = self.workspace(), self.workspace()
            await self.two_users(store, ws)
            await self.two_users(store, other)
            assert {m.memory_id for m in await store.search(ws, unit(1), 5)} == {"a1", "b1"}  # index loaded

            preview = await store.forget(ws, "alice", dry_run=True)
            assert preview == {"memories": 1, "messages": 2, "history": 3, "sessions": 0}
            assert await store.count(ws) == 2 and len(await store.history(ws)) == 4  # a dry run changes nothing
            assert await store.memorized(ws, "alice", ["m1", "m2"]) == {"m1", "m2"}

            assert await store.forget(ws, "alice") == preview
            # nothing of alice's is readable by any call, not even the history of her deleted memory
            assert await store.get(ws, ["a1", "a2"]) == []
            assert [m.memory_id for m in await store.search(ws, unit(1), 10)] == ["b1"]
            assert [m.memory_id async for batch in store.iterate(ws) for m in batch] == ["b1"]
            assert await store.count(ws, MemoryFilter(target="alice")) == 0
            assert await store.history(ws, "a1") == [] and await store.history(ws, "a2") == []
            assert await store.memorized(ws, "alice", ["m1", "m2"]) == set()
            # bob keeps everything: his memory, its history, his ledger
            [b1] = await store.get(ws, ["b1"])
            assert b1.content == "bob lives in Porto"
            assert [(e.memory_id, e.event) for e in await store.history(ws)] == [("b1", "add")]
            assert await store.memorized(ws, "bob", ["m1"]) == {"m1"}
            # alice in another workspace keeps everything too
            assert await store.count(other, MemoryFilter(target="alice")) == 1
            assert len(await store.history(other)) == 4
            assert await store.memorized(other, "alice", ["m1", "m2"]) == {"m1", "m2"}
            # idempotent
            assert await store.forget(ws, "alice") == NOTHING
            assert await store.forget(ws, "nobody") == NOTHING

        self.run_case(case)

    def test_forget_a_workspace(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, other = self.workspace(), self.workspace()
            await self.two_users(store, ws)
            await self.two_users(store, other)
            preview = await store.forget(ws, dry_run=True)
            assert preview == {"memories": 2, "messages": 3, "history": 4, "sessions": 0}
            assert await store.count(ws) == 2
            assert await store.forget(ws) == preview
            assert await store.count(ws) == 0 and await store.search(ws, unit(3), 5) == []
            assert await store.get(ws, ["a1", "b1"]) == [] and await store.history(ws) == []
            assert await store.memorized(ws, "alice", ["m1", "m2"]) == set()
            assert await store.memorized(ws, "bob", ["m1"]) == set()
            assert await store.count(other) == 2 and len(await store.history(other)) == 4
            assert await store.memorized(other, "bob", ["m1"]) == {"m1"}
            assert await store.forget(ws) == NOTHING
            await store.upsert(ws, [memory(ws, "again", 9)])  # the workspace is usable again
            assert [m.memory_id for m in await store.search(ws, unit(9), 5)] == ["again"]

        self.run_case(case)

    def test_forget_scope(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            assert await store.forget(ws) == NOTHING and await store.forget(ws, "alice", dry_run=True) == NOTHING
            with pytest.raises(ScopeError, match="workspace id"):
                await store.forget("")
            for user in ("", "   "):
                with pytest.raises(ScopeError, match="user id"):
                    await store.forget(ws, user)

        self.run_case(case)
