"""Part of the vector store conformance suite: finding memories by the slots they hold (``metadata["slots"]``,
:mod:`flowmem.scoring.slots`) with the ``slots`` and ``slot_values`` filters, read through each store's index.

:class:`~flowmem.testing.conformance.VectorStoreConformance` includes these tests, so every store runs them.
"""

from __future__ import annotations

from flowmem.schema.memory import Memory
from flowmem.scoring.slots import SLOTS_KEY
from flowmem.testing.read_counter import BACKEND_READS, count_reads
from flowmem.testing.store_harness import StoreHarness, memory, unit
from flowmem.vector_store.base import VectorStore
from flowmem.vector_store.filters import UNREAD_SLOTS, MemoryFilter


def holding(workspace: str, memory_id: str, seed: int, slots: dict[str, str] | None, **fields: object) -> Memory:
    """A memory of alice with these slots stored (``None``: none stored, as written before slots were)."""
    metadata = {} if slots is None else {SLOTS_KEY: slots}
    return memory(workspace, memory_id, seed, target="alice", metadata=metadata, **fields)


class SlotConformance(StoreHarness):
    """Slot filters (mixed into the whole suite)."""

    def test_slot_filters_find_the_holders(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            memories = [
                holding(ws, "home", 1, {"residence": "milan"}),
                holding(ws, "work", 2, {"employer": "acme", "residence": "milan"}),
                holding(ws, "dog", 3, {"pet_name:dog": "nibbles"}),
                holding(ws, "none", 4, {}),  # read: holds no slot
                holding(ws, "legacy", 5, None),  # never read
                holding(ws, "old-home", 6, {"residence": "turin"}, status="expired"),
            ]
            await store.upsert(ws, memories)
            cases = {
                MemoryFilter(slots=["residence"]): {"home", "work", "old-home"},
                MemoryFilter(slots=["residence"], status="valid"): {"home", "work"},
                MemoryFilter(slots=["pet_name:dog", "employer"]): {"dog", "work"},
                MemoryFilter(slots=["residence", UNREAD_SLOTS], status="valid"): {"home", "work", "legacy"},
                MemoryFilter(slots=[UNREAD_SLOTS]): {"legacy"},
                MemoryFilter(slots=["phone"]): set(),
                MemoryFilter(slot_values=["nibbles", "turin"]): {"dog", "old-home"},
                MemoryFilter(slot_values=["milan"], slots=["employer"]): {"work"},
                MemoryFilter(slot_values=["residence"]): set(),  # a name is no value
            }
            for flt, expected in cases.items():
                assert {m.memory_id for m in memories if flt.matches(m)} == expected, flt
                assert await store.count(ws, flt) == len(expected), flt
                assert {m.memory_id for m in await store.search(ws, unit(0), 50, flt)} == expected, flt
                iterated = [m.memory_id async for batch in store.iterate(ws, flt, batch_size=2) for m in batch]
                assert sorted(iterated) == sorted(expected), flt
            # Slots read and written back, a slot given up, a memory deleted: the index follows each write.
            await store.upsert(ws, [
                holding(ws, "legacy", 5, {"residence": "rome"}),
                holding(ws, "work", 2, {"employer": "acme"}),
            ])  # fmt: skip
            await store.delete(ws, ["home"])
            assert {m.memory_id async for b in store.iterate(ws, MemoryFilter(slots=["residence"])) for m in b} == {
                "legacy", "old-home"
            }  # fmt: skip
            assert await store.count(ws, MemoryFilter(slots=[UNREAD_SLOTS])) == 0
            assert await store.count(ws, MemoryFilter(slot_values=["milan"])) == 0
            [got] = await store.get(ws, ["legacy"])
            assert got.metadata == {SLOTS_KEY: {"residence": "rome"}}

        self.run_case(case)

    def test_slot_reads_read_only_the_holders_of_thousands(self) -> None:
        # The write path asks, per message stating a fact, for the user's memories holding its slots: that read
        # costs the holders, not the user's thousands of other memories.
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            plain = [holding(ws, f"p{i:05d}", i, {}) for i in range(3_000)]
            holders = [holding(ws, "home", 1, {"residence": "milan"}), holding(ws, "legacy", 2, None)]
            others = [memory(ws, "bob-home", 3, target="bob", metadata={SLOTS_KEY: {"residence": "oslo"}})]
            await store.upsert(ws, plain + holders + others)
            flt = MemoryFilter(target="alice", status="valid", slots=["residence", UNREAD_SLOTS])
            with count_reads(store, BACKEND_READS) as reads:
                found = [m.memory_id async for batch in store.iterate(ws, flt, batch_size=1000) for m in batch]
            assert sorted(found) == ["home", "legacy"]
            assert reads.total <= 2, reads

        self.run_case(case)
