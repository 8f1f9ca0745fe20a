"""Part of the vector store conformance suite: the memories said around a memory
(:func:`flowmem.vector_store.neighbours.said_around`), which every store must give alike.

:class:`~flowmem.testing.conformance.VectorStoreConformance` includes these tests, so every store runs them.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from flowmem.schema.memory import Memory
from flowmem.testing.store_harness import StoreHarness, memory
from flowmem.vector_store.base import VectorStore
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.neighbours import said_around

T0 = datetime(2024, 5, 7, 18, 0)
GAP = timedelta(minutes=30)


def turn(workspace: str, memory_id: str, seconds: int, seed: int, **fields: object) -> Memory:
    """A conversation turn said ``seconds`` after 18:00 on 7 May 2024 (``created_at`` is when it was said)."""
    said = T0 + timedelta(seconds=seconds)
    fields.setdefault("target", "alice")
    return memory(workspace, memory_id, seed, memory_type="conversation", created_at=said, **fields)


class NeighbourConformance(StoreHarness):
    """Context around a memory (mixed into the whole suite)."""

    def test_said_around_in_order_within_the_conversation(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            await store.upsert(ws, [
                turn(ws, "yesterday", -86_400, 1),  # another conversation: a day before
                turn(ws, "t1", 0, 2), turn(ws, "t2", 60, 3), turn(ws, "t3", 120, 4),
                turn(ws, "t4", 180, 5), turn(ws, "t5", 240, 6),
                turn(ws, "later", 240 + 3_600, 7),  # an hour's pause: another conversation
                turn(ws, "bob", 150, 8, target="bob"),  # someone else's, in the middle
            ])  # fmt: skip
            hit = (await store.get(ws, ["t3"]))[0]
            flt = MemoryFilter(target="alice", status="valid")
            one = await said_around(store, ws, hit, flt, before=1, after=1, max_gap=GAP)
            assert [(n.memory.memory_id, n.offset) for n in one] == [("t2", -1), ("t4", 1)]
            wide = await said_around(store, ws, hit, flt, before=5, after=5, max_gap=GAP, with_vectors=True)
            assert [(n.memory.memory_id, n.offset) for n in wide] == [
                ("t2", -1), ("t4", 1), ("t1", -2), ("t5", 2),
            ]  # fmt: skip
            assert all(n.memory.vector is not None for n in wide)
            lopsided = await said_around(store, ws, hit, flt, before=0, after=2, max_gap=GAP)
            assert [(n.memory.memory_id, n.offset) for n in lopsided] == [("t4", 1), ("t5", 2)]
            first = (await store.get(ws, ["t1"]))[0]
            from_first = await said_around(store, ws, first, flt, before=2, after=2, max_gap=GAP)
            assert [n.memory.memory_id for n in from_first] == ["t2", "t3"]

        self.run_case(case)

    def test_said_around_stays_in_scope_and_session(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, other = self.workspace(), self.workspace()
            await store.upsert(ws, [
                turn(ws, "a1", 0, 1, metadata={"session": 1}),
                turn(ws, "a2", 1, 2, metadata={"session": 1}),
                turn(ws, "b1", 2, 3, metadata={"session": 2}),  # a second later, but another session
                turn(ws, "old", 3, 4, status="expired", metadata={"session": 2}),
            ])  # fmt: skip
            await store.upsert(other, [turn(other, "x", 1, 5, metadata={"session": 1})])
            hit = (await store.get(ws, ["a2"]))[0]
            flt = MemoryFilter(target="alice", status="valid")
            found = await said_around(store, ws, hit, flt, before=3, after=3, max_gap=GAP)
            assert [(n.memory.memory_id, n.offset) for n in found] == [("a1", -1)]
            b1 = (await store.get(ws, ["b1"]))[0]
            assert [
                n.memory.memory_id for n in await said_around(store, ws, b1, flt, before=3, after=3, max_gap=GAP)
            ] == []

        self.run_case(case)
