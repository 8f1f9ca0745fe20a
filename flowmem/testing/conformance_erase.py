"""Part of the vector store conformance suite: deletes inside :meth:`VectorStore.write`.

:class:`~flowmem.testing.conformance.VectorStoreConformance` includes these tests, so every store
runs them; this module only keeps the suite's files small.
"""

from __future__ import annotations

import numpy as np
import pytest

from flowmem.errors import InputError
from flowmem.schema.history import HistoryEvent
from flowmem.testing.store_harness import StoreHarness, memory, unit
from flowmem.vector_store.base import DimensionMismatchError, VectorStore


class EraseConformance(StoreHarness):
    """Deletes committed with their history (mixed into the whole suite)."""

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
