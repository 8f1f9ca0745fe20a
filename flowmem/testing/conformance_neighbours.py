"""Part of the vector store conformance suite: the memories said around a memory
(:func:`flowmem.vector_store.neighbours.said_around`), which every store must give alike.

:class:`~flowmem.testing.conformance.VectorStoreConformance` includes these tests, so every store runs them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from flowmem.schema.memory import Memory
from flowmem.testing.read_counter import BACKEND_READS, count_reads
from flowmem.testing.store_harness import StoreHarness, memory
from flowmem.vector_store.base import VectorStore
from flowmem.vector_store.filters import MemoryFilter, second
from flowmem.vector_store.neighbours import said_around, said_around_many

T0 = datetime(2024, 5, 7, 18, 0)
GAP = timedelta(minutes=30)


def turn(workspace: str, memory_id: str, seconds: int, seed: int, **fields: object) -> Memory:
    """A conversation turn said ``seconds`` after 18:00 on 7 May 2024 (``created_at`` is when it was said)."""
    said = T0 + timedelta(seconds=seconds)
    fields.setdefault("target", "alice")
    return memory(workspace, memory_id, seed, memory_type="conversation", created_at=said, **fields)


class NeighbourConformance(StoreHarness):
    """Context around a memory (mixed into the whole suite)."""

    @contextmanager
    def request_sizes(self, store: VectorStore) -> Iterator[list[int]]:
        """The ``size`` of each search request ``store`` sends while the block runs; a store with a server
        overrides this (in-process stores send none, and are held to the records they read instead)."""
        yield []

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

    def test_reads_around_several_places_are_each_place_read_alone(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            await store.upsert(ws, [
                turn(ws, "yesterday", -86_400, 1), turn(ws, "t1", 0, 2), turn(ws, "t2", 60, 3),
                turn(ws, "t3", 120, 4), turn(ws, "t4", 180, 5, status="expired"), turn(ws, "t5", 240, 6),
                turn(ws, "bob", 150, 8, target="bob"),
            ])  # fmt: skip
            hits = await store.get(ws, ["t3", "t2", "yesterday", "t5"])  # t2 and t3 share neighbours
            flt = MemoryFilter(target="alice", status="valid")
            places = [(h.created_at, h.memory_id, flt) for h in hits] + [(T0, "nowhere", None)]
            alone = [await store.adjacent(ws, at, i, f, before=2, after=1, with_vectors=True) for at, i, f in places]
            together = await store.adjacent_many(ws, places, before=2, after=1, with_vectors=True)
            assert [[[m.memory_id for m in side] for side in sides] for sides in together] == [
                [[m.memory_id for m in side] for side in sides] for sides in alone
            ]
            assert all(m.vector is not None for sides in together for side in sides for m in side)
            t1 = [m for sides in together for side in sides for m in side if m.memory_id == "t1"]
            assert len(t1) == 4 and len({id(m) for m in t1}) == 4  # around 4 of the places: a copy for each
            assert await store.adjacent_many(ws, places, before=0, after=0) == [([], [])] * len(places)
            assert await store.adjacent_many(ws, [], before=1, after=1) == []
            many = await said_around_many(store, ws, hits, flt, before=2, after=2, max_gap=GAP)
            one = [await said_around(store, ws, h, flt, before=2, after=2, max_gap=GAP) for h in hits]
            assert [[(n.memory.memory_id, n.offset) for n in found] for found in many] == [
                [(n.memory.memory_id, n.offset) for n in found] for found in one
            ]

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

    def test_adjacent_reads_only_the_nearest_of_thousands_said_at_once(self) -> None:
        # A bulk load: thousands of memories in one second. The read around one of them is the k nearest by
        # (said-at, id), and reads those k, not the second's thousands.
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            bulk = [
                turn(ws, f"n{i:05d}", 0, i, target="bob" if i % 7 == 0 else "alice",
                     status="expired" if i % 11 == 0 else "valid")
                for i in range(3_000)
            ]  # fmt: skip
            edges = [turn(ws, "a-second-before", -1, 1), turn(ws, "z-second-after", 1, 2)]
            await store.upsert(ws, bulk + edges)
            flt = MemoryFilter(target="alice", status="valid")
            order = sorted(
                (m for m in bulk + edges if flt.matches(m)), key=lambda m: (second(m.created_at), m.memory_id)
            )
            ids = [m.memory_id for m in order]
            hit = next(m for m in bulk if m.memory_id == "n01500")
            at = ids.index("n01500")
            with count_reads(store, BACKEND_READS) as reads, self.request_sizes(store) as sizes:
                earlier, later = await store.adjacent(ws, hit.created_at, hit.memory_id, flt, before=3, after=4)
            assert [m.memory_id for m in earlier] == ids[at - 3 : at][::-1]
            assert [m.memory_id for m in later] == ids[at + 1 : at + 5]
            assert reads.total <= 3 + 4 + 2, reads  # the k asked for (and the hit itself at most, per side)
            assert all(size <= 4 + 1 for size in sizes), sizes
            # A place no memory holds (between n01500 and n01501), and the ends of the second.
            earlier, later = await store.adjacent(ws, hit.created_at, "n01500a", flt, before=1, after=1)
            assert [m.memory_id for m in earlier + later] == ["n01500", ids[at + 1]]
            first, last = order[1], order[-2]
            earlier, _ = await store.adjacent(ws, first.created_at, first.memory_id, flt, before=2, after=0)
            assert [m.memory_id for m in earlier] == ["a-second-before"]
            _, later = await store.adjacent(ws, last.created_at, last.memory_id, flt, before=0, after=2)
            assert [m.memory_id for m in later] == ["z-second-after"]
            # said_around on top of it: one read of the turns wanted.
            with count_reads(store, BACKEND_READS) as reads, self.request_sizes(store) as sizes:
                found = await said_around(store, ws, hit, flt, before=2, after=3, max_gap=GAP)
            assert [(n.memory.memory_id, n.offset) for n in found] == [
                (ids[at - 1], -1), (ids[at + 1], 1), (ids[at - 2], -2), (ids[at + 2], 2), (ids[at + 3], 3),
            ]  # fmt: skip
            assert reads.total <= 2 + 3 + 2 and sum(reads.calls.values()) == 1, reads
            assert all(size <= 3 + 1 for size in sizes), sizes

        self.run_case(case)

    def test_turns_around_count_messages_not_memories(self) -> None:
        # A message split into facts is several memories said at one time (one source): one turn. The hit's own
        # message's other facts are no turn around it; a memory without sources is a turn of its own.
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            await store.upsert(ws, [
                turn(ws, "a", 0, 1, source=["m1"]),
                turn(ws, "b1", 60, 2, source=["m2"]), turn(ws, "b2", 60, 3, source=["m2"]),
                turn(ws, "b3", 60, 4, source=["m2"]),
                turn(ws, "h1", 120, 5, source=["m3"]), turn(ws, "hit", 120, 6, source=["m3"]),
                turn(ws, "h2", 120, 7, source=["m3"]),
                turn(ws, "c", 180, 8, source=["m4"]), turn(ws, "bob", 200, 9, target="bob", source=["m9"]),
                turn(ws, "d1", 240, 10, source=["m5"]), turn(ws, "d2", 240, 11, source=["m5"], status="expired"),
                turn(ws, "d3", 240, 12, source=["m5"]), turn(ws, "e", 300, 13), turn(ws, "f", 360, 14),
                turn(ws, "later", 360 + 3_600, 15, source=["m8"]),  # an hour's pause: another conversation
            ])  # fmt: skip
            hit, e = await store.get(ws, ["hit", "e"])
            flt = MemoryFilter(target="alice", status="valid")
            places = [(hit.created_at, hit.memory_id, hit.source, flt), (e.created_at, e.memory_id, e.source, flt)]
            with count_reads(store, BACKEND_READS) as reads:
                (earlier, later), (before_e, after_e) = await store.turns_around(
                    ws, places, before=2, after=3, with_vectors=True
                )
            assert [[m.memory_id for m in t] for t in earlier] == [["b3", "b2", "b1"], ["a"]]
            assert [[m.memory_id for m in t] for t in later] == [["c"], ["d1", "d3"], ["e"]]
            assert all(m.vector is not None for side in (earlier, later) for t in side for m in t)
            assert [[m.memory_id for m in t] for t in before_e] == [["d3", "d1"], ["c"]]  # e has no sources: no own
            assert [[m.memory_id for m in t] for t in after_e] == [["f"], ["later"]]
            assert reads.total <= 13 + 2, reads  # the turns' memories (and the hit's own facts at most)
            assert await store.turns_around(ws, places, before=0, after=0) == [([], []), ([], [])]
            found = (await said_around_many(store, ws, [hit], flt, before=2, after=3, max_gap=GAP, in_turns=True))[0]
            assert sorted((n.memory.memory_id, n.offset) for n in found) == [
                ("a", -2), ("b1", -1), ("b2", -1), ("b3", -1), ("c", 1), ("d1", 2), ("d3", 2), ("e", 3),
            ]  # fmt: skip
            after_f = (await said_around_many(store, ws, [e], flt, before=0, after=5, max_gap=GAP, in_turns=True))[0]
            assert [(n.memory.memory_id, n.offset) for n in after_f] == [("f", 1)]  # the pause ends the conversation

        self.run_case(case)

    def test_turns_around_read_only_the_nearest_of_thousands_said_at_once(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            bulk = [turn(ws, f"n{i:05d}", 0, i, source=[f"s{i // 2}"]) for i in range(3_000)]  # two memories a turn
            await store.upsert(ws, bulk)
            flt = MemoryFilter(target="alice", status="valid")
            hit = next(m for m in bulk if m.memory_id == "n01500")
            with count_reads(store, BACKEND_READS) as reads, self.request_sizes(store) as sizes:
                [(earlier, later)] = await store.turns_around(
                    ws, [(hit.created_at, hit.memory_id, hit.source, flt)], before=2, after=3
                )
            assert [[m.memory_id for m in t] for t in earlier] == [["n01499", "n01498"], ["n01497", "n01496"]]
            assert [[m.memory_id for m in t] for t in later] == [
                ["n01502", "n01503"], ["n01504", "n01505"], ["n01506", "n01507"],
            ]  # fmt: skip
            # The turns' memories (the hit's other fact, n01501, at most besides); a server asked for pages of at most
            # the turns wanted plus one and then as many again (two memories a turn: a second page a side).
            assert reads.total <= 4 + 6 + 1, reads
            assert len(sizes) <= 4 and all(size <= 2 * (3 + 1) for size in sizes), sizes

        self.run_case(case)

    def test_newest_reads_only_the_last_of_thousands(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            bulk = [
                turn(ws, f"n{i:05d}", i // 1000, i, status="expired" if i % 11 == 0 else "valid")
                for i in range(3_000)
            ]  # fmt: skip
            await store.upsert(ws, [*bulk, turn(ws, "bob", 5, 1, target="bob")])
            flt = MemoryFilter(target="alice", status="valid")
            order = sorted((m for m in bulk if flt.matches(m)), key=lambda m: (second(m.created_at), m.memory_id))
            with count_reads(store, BACKEND_READS) as reads, self.request_sizes(store) as sizes:
                found = await store.newest(ws, flt, limit=5)
            assert [m.memory_id for m in found] == [m.memory_id for m in order[-5:][::-1]]
            assert reads.total <= 5 + 1, reads
            assert all(size <= 5 + 1 for size in sizes), sizes
            assert await store.newest(ws, flt, limit=0) == []
            assert [m.memory_id for m in await store.newest(ws, MemoryFilter(target="bob"), limit=3)] == ["bob"]

        self.run_case(case)
