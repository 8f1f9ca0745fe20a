"""The vector store conformance suite: one set of tests every store backend must pass.

Reuse it by subclassing in a test module and saying how to open a store::

    from flowmem.testing.conformance import VectorStoreConformance

    class TestMyStore(VectorStoreConformance):
        async def open_store(self) -> VectorStore:
            return MyStore(MyStore.Params(...))

Each test runs its own event loop, opens a store, works in fresh workspaces (so a shared
server index is fine) and closes the store. Vectors are ``DIMS`` wide.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import numpy as np
import pytest

from flowmem.core.errors import InputError
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.scoring.keys import offline_key
from flowmem.testing.conformance_erase import EraseConformance
from flowmem.testing.conformance_lexical import LexicalConformance
from flowmem.testing.conformance_neighbours import NeighbourConformance
from flowmem.testing.conformance_rules import RulesConformance
from flowmem.testing.conformance_sessions import SessionConformance
from flowmem.testing.conformance_slots import SlotConformance
from flowmem.testing.conformance_write_path import WritePathConformance
from flowmem.testing.store_harness import DIMS, memory, unit
from flowmem.vector_store.base import DimensionMismatchError, ScopeError, VectorStore
from flowmem.vector_store.filters import MemoryFilter

__all__ = ["DIMS", "VectorStoreConformance", "memory", "unit"]


class VectorStoreConformance(
    WritePathConformance,
    EraseConformance,
    RulesConformance,
    SessionConformance,
    LexicalConformance,
    NeighbourConformance,
    SlotConformance,
):
    """Subclass and implement :meth:`open_store`. (History and the message ledger: :class:`WritePathConformance`;
    deletes and erasure: :class:`EraseConformance`; filters, widths and scope: :class:`RulesConformance`; chat
    sessions: :class:`SessionConformance`; lexical search: :class:`LexicalConformance`; memories said around a
    memory: :class:`NeighbourConformance`; slot filters: :class:`SlotConformance`.)"""

    bulk_size = 10_000

    async def open_store(self) -> VectorStore:
        raise NotImplementedError

    # -- CRUD ----------------------------------------------------------------------------------
    def test_upsert_get_delete_round_trip(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            rich = memory(
                ws, "m1", 1, target="alice", memory_type="insight", when_to_use="when planning trips",
                keywords=["travel", "japan"], created_at=datetime(2024, 5, 4, 10, 30),
                updated_at=datetime(2024, 5, 5, 8, 0), status="valid", source=["msg-1", "msg-2"],
                metadata={"confidence": 0.9, "tags": ["a"]},
            ).with_message_time(datetime(2024, 5, 4, 10, 30)).with_event_time(
                datetime(2024, 6, 1), start=datetime(2024, 6, 1), end=datetime(2024, 6, 9)
            )  # fmt: skip
            await store.upsert(ws, [rich, memory(ws, "m2", 2), memory(ws, "m3", 3)])
            assert await store.count(ws) == 3
            [got] = await store.get(ws, ["m1"])
            # Stored as given, with its expanded key built from its words (the one thing a store adds).
            keyed = rich.model_copy(update={"expanded_key": offline_key(rich)})
            assert got.expanded_key and got.expanded_key == keyed.expanded_key
            assert got.model_dump(exclude={"vector", "scores"}) == keyed.model_dump(exclude={"vector", "scores"})
            assert got.vector is None
            assert [m.memory_id for m in await store.get(ws, ["m3", "nope", "m1"])] == ["m3", "m1"]
            assert await store.delete(ws, ["m1", "m2", "nope"]) == 2
            assert await store.get(ws, ["m1", "m2"]) == []
            assert await store.count(ws) == 1

        self.run_case(case)

    def test_get_with_vectors_returns_unit_vectors(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            raw = Memory(workspace_id=ws, memory_id="v", content="x", vector=unit(7) * 5.0)
            await store.upsert(ws, [raw])
            [got] = await store.get(ws, ["v"], with_vectors=True)
            assert got.vector is not None
            np.testing.assert_allclose(got.vector, unit(7), atol=1e-5)

        self.run_case(case)

    def test_upsert_is_idempotent_and_replaces(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            batch = [memory(ws, f"m{i}", i) for i in range(5)]
            await store.upsert(ws, batch)
            await store.upsert(ws, batch)
            assert await store.count(ws) == 5
            changed = batch[0].model_copy(update={"content": "changed", "vector": unit(99)})
            await store.upsert(ws, [changed])
            assert await store.count(ws) == 5
            [got] = await store.get(ws, ["m0"])
            assert got.content == "changed"
            [top] = await store.search(ws, unit(99), 1)
            assert top.memory_id == "m0"

        self.run_case(case)

    # -- search --------------------------------------------------------------------------------
    def test_search_orders_by_cosine_similarity(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            memories = [memory(ws, f"m{i}", i) for i in range(30)]
            await store.upsert(ws, memories)
            query = unit(5) + 0.3 * unit(6)
            query = query / np.linalg.norm(query)
            found = await store.search(ws, query, 10)
            assert len(found) == 10
            expected = sorted(((float(unit(i) @ query), f"m{i}") for i in range(30)), reverse=True)[:10]
            assert [m.memory_id for m in found][:2] == [expected[0][1], expected[1][1]]
            scores = [m.scores["similarity"] for m in found]
            assert scores == sorted(scores, reverse=True)
            np.testing.assert_allclose(scores, [s for s, _ in expected], atol=2e-3)
            assert all(m.vector is None for m in found)
            assert await store.search(ws, query, 0) == []
            assert len(await store.search(ws, query, 100)) == 30

        self.run_case(case)

    async def _ann_and_bob(self, store: VectorStore) -> str:
        """A workspace of 20 memories, ann's and bob's in turn (``m0``...), beside another workspace's one: its id."""
        ws, other = self.workspace(), self.workspace()
        await store.upsert(ws, [memory(ws, f"m{i}", i, target=("ann", "bob")[i % 2]) for i in range(20)])
        await store.upsert(other, [memory(other, "theirs", 5)])
        return ws

    def test_search_many_answers_each_search_as_search_does(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = await self._ann_and_bob(store)
            # a few of another type: a narrow search after a broad one (an embedded store may reuse the broad one's
            # scores for the rows the narrow one keeps: the same memories and scores either way)
            await store.upsert(ws, [memory(ws, f"i{i}", 40 + i, target="ann", memory_type="insight") for i in range(3)])
            query = unit(5) + 0.3 * unit(6)
            searches = [(10, None), (3, MemoryFilter(target="ann")), (0, None), (5, MemoryFilter(target="nobody")),
                        (2, MemoryFilter(memory_type="insight"))]  # fmt: skip
            many = await store.search_many(ws, query, searches)
            alone = [await store.search(ws, query, k, f) for k, f in searches]
            assert [[m.memory_id for m in r] for r in many] == [[m.memory_id for m in r] for r in alone]
            assert [len(r) for r in many] == [10, 3, 0, 0, 2]
            assert all(m.memory_type == "insight" for m in many[4])
            assert all(m.target == "ann" for m in many[1])
            for got, expected in zip(many, alone, strict=True):
                np.testing.assert_allclose([m.scores["similarity"] for m in got],
                                           [m.scores["similarity"] for m in expected], atol=1e-6)  # fmt: skip
            assert await store.search_many(ws, query, []) == []
            with pytest.raises(DimensionMismatchError):
                await store.search_many(ws, np.ones(DIMS + 1), [(3, None)])

        self.run_case(case)

    def test_search_each_answers_each_vector_as_search_does(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = await self._ann_and_bob(store)
            vectors = [unit(5) + 0.3 * unit(6), unit(2), 2 * unit(11) - unit(4)]  # not unit: scaled as search scales
            for k, flt in ((10, None), (3, MemoryFilter(target="ann")), (5, MemoryFilter(target="nobody"))):
                each = await store.search_each(ws, vectors, k, flt)
                alone = [await store.search(ws, v, k, flt) for v in vectors]
                # the same memories in the same order; the scores within float32 rounding (a store may score a batch
                # as one matrix product, which sums in another order than one query's dot products)
                assert [[m.memory_id for m in r] for r in each] == [[m.memory_id for m in r] for r in alone]
                for batch, single in zip(each, alone, strict=True):
                    for a, b in zip(batch, single, strict=True):
                        assert a.scores.keys() == b.scores.keys()
                        assert all(abs(a.scores[key] - b.scores[key]) < 1e-5 for key in a.scores)
            assert [len(r) for r in await store.search_each(ws, vectors, 3, MemoryFilter(target="ann"))] == [3, 3, 3]
            assert await store.search_each(ws, vectors, 0) == [[], [], []]
            assert await store.search_each(ws, [], 3) == []
            with pytest.raises(DimensionMismatchError):
                await store.search_each(ws, [unit(1), np.ones(DIMS + 1)], 3)

        self.run_case(case)

    def test_filters_in_search_count_and_iterate(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            base = datetime(2024, 5, 1, 9)
            memories = []
            for i in range(12):
                when = base + timedelta(days=i)
                m = memory(
                    ws, f"m{i:02d}", i, target="alice" if i % 2 else "bob",
                    memory_type=("conversation", "observation", "obs_customized", "insight")[i % 4],
                    status="expired" if i == 3 else "valid", created_at=when, source=[f"msg{i % 3}"],
                ).with_message_time(when)  # fmt: skip
                memories.append(m)
            await store.upsert(ws, memories)
            cases = {
                MemoryFilter(target="alice"): {m.memory_id for m in memories if m.target == "alice"},
                MemoryFilter(memory_type=["insight", "conversation"]): {
                    m.memory_id for m in memories if m.memory_type in ("insight", "conversation")
                },
                MemoryFilter(status="expired"): {"m03"},
                MemoryFilter(parts={"msg_day": 5, "msg_month": 5}): {"m04"},
                MemoryFilter(parts={"msg_weekday": 6}): {m.memory_id for m in memories if m.msg_weekday == 6},
                MemoryFilter(created_after=base + timedelta(days=10)): {"m10", "m11"},
                MemoryFilter(created_before=base + timedelta(days=2)): {"m00", "m01"},
                MemoryFilter(source="msg1"): {"m01", "m04", "m07", "m10"},
                MemoryFilter(target="bob", status="valid", memory_type="conversation"): {"m00", "m04", "m08"},
                MemoryFilter(target="nobody"): set(),
            }
            for flt, expected in cases.items():
                assert await store.count(ws, flt) == len(expected), flt
                found = await store.search(ws, unit(0), 50, flt)
                assert {m.memory_id for m in found} == expected, flt
                iterated = [m.memory_id async for batch in store.iterate(ws, flt, batch_size=3) for m in batch]
                assert sorted(iterated) == sorted(expected), flt

        self.run_case(case)

    def test_time_range_filters(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            sat = datetime(2024, 6, 8)
            memories = [
                memory(ws, "said-sat", 1).with_message_time(sat + timedelta(hours=10)),
                memory(ws, "said-mon", 2).with_message_time(sat + timedelta(days=2, hours=9)),
                memory(ws, "said-fri-night", 3).with_message_time(sat - timedelta(hours=1)),
                memory(ws, "event-range", 4).with_event_time(
                    sat - timedelta(days=1), start=sat - timedelta(days=1), end=sat + timedelta(hours=12)
                ),
                memory(ws, "event-day", 5).with_event_time(sat + timedelta(days=1)),
                memory(ws, "event-later", 6).with_event_time(sat + timedelta(days=9)),
                memory(ws, "no-time", 7),
            ]
            await store.upsert(ws, memories)
            weekend = (sat, sat + timedelta(days=2))
            said = MemoryFilter(said_between=weekend)
            happens = MemoryFilter(happens_between=weekend)
            assert {m.memory_id for m in await store.search(ws, unit(0), 10, said)} == {"said-sat"}
            assert {m.memory_id for m in await store.search(ws, unit(0), 10, happens)} == {"event-range", "event-day"}
            assert await store.count(ws, happens) == 2
            both = MemoryFilter(said_between=weekend, happens_between=weekend)
            assert await store.count(ws, both) == 0
            for m in memories:
                assert said.matches(m) == (m.memory_id == "said-sat")

        self.run_case(case)

    def test_iterate_orders_by_creation_and_batches(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            when = datetime(2024, 1, 1)
            memories = [memory(ws, f"id{9 - i}", i, created_at=when + timedelta(hours=i // 2)) for i in range(10)]
            await store.upsert(ws, memories)
            batches = [batch async for batch in store.iterate(ws, batch_size=4)]
            assert [len(b) for b in batches] == [4, 4, 2]
            ids = [m.memory_id for b in batches for m in b]
            expected = [m.memory_id for m in sorted(memories, key=lambda m: (m.created_at, m.memory_id))]
            assert ids == expected
            with_vectors = [m async for b in store.iterate(ws, with_vectors=True) for m in b]
            assert all(m.vector is not None and len(m.vector) == len(unit(0)) for m in with_vectors)

        self.run_case(case)

    def test_unicode_round_trips(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace() + "-工作区"
            texts = ["我上周去北京出差了 🚄", 'Ünïcödé — «quotes» ‘and’ "escapes" \\ / \n newline', "日本語テキスト"]
            memories = [
                memory(ws, f"u{i}", i, content=t, target="李雷", keywords=["出差", "🚄"]) for i, t in enumerate(texts)
            ]
            await store.upsert(ws, memories)
            got = await store.get(ws, ["u0", "u1", "u2"])
            assert [m.content for m in got] == texts
            assert all(m.target == "李雷" and m.keywords == ["出差", "🚄"] for m in got)
            assert await store.count(ws, MemoryFilter(target="李雷")) == 3
            [top] = await store.search(ws, unit(1), 1, MemoryFilter(target="李雷"))
            assert top.content == texts[1]

        self.run_case(case)

    def test_bulk_upsert(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            rng = np.random.default_rng(0)
            vectors = rng.standard_normal((self.bulk_size, len(unit(0)))).astype(np.float32)
            created = datetime(2024, 1, 1)
            memories = [
                Memory(workspace_id=ws, memory_id=f"b{i:05d}", content=f"bulk {i}", vector=vectors[i],
                       created_at=created + timedelta(seconds=i))
                for i in range(self.bulk_size)
            ]  # fmt: skip
            for start in range(0, self.bulk_size, 2_500):
                await store.upsert(ws, memories[start : start + 2_500])
            assert await store.count(ws) == self.bulk_size
            probe = 1234
            [top] = await store.search(ws, vectors[probe], 1)
            assert top.memory_id == f"b{probe:05d}"
            assert top.scores["similarity"] == pytest.approx(1.0, abs=1e-3)
            seen = [m.memory_id async for batch in store.iterate(ws, batch_size=1_000) for m in batch]
            assert seen == [m.memory_id for m in memories]

        self.run_case(case)

    # -- scope and bad input -------------------------------------------------------------------
    def test_tenant_isolation(self) -> None:
        async def case(store: VectorStore) -> None:
            a, b = self.workspace(), self.workspace()
            await store.upsert(a, [memory(a, "shared-id", 1, target="alice"), memory(a, "a-only", 2, target="alice")])
            await store.upsert(b, [memory(b, "shared-id", 3, target="alice", content="b's own")])
            # search: B never sees A's memories, even with A's exact vector or a filter both match
            found = await store.search(b, unit(2), 10, MemoryFilter(target="alice"))
            assert [(m.workspace_id, m.memory_id) for m in found] == [(b, "shared-id")]
            # get by id: A's ids are invisible from B; a shared id resolves to B's own memory
            assert await store.get(b, ["a-only"]) == []
            [own] = await store.get(b, ["shared-id"])
            assert own.content == "b's own" and own.workspace_id == b
            # delete by id from B touches nothing of A's
            assert await store.delete(b, ["a-only"]) == 0
            assert await store.delete(b, ["shared-id"]) == 1
            assert {m.memory_id for m in await store.get(a, ["shared-id", "a-only"])} == {"shared-id", "a-only"}
            # count and iterate stay inside the workspace
            assert await store.count(b) == 0
            assert await store.count(a, MemoryFilter(target="alice")) == 2
            assert [m async for batch in store.iterate(b) for m in batch] == []
            # writing another workspace's memory is refused
            with pytest.raises(ScopeError):
                await store.upsert(b, [memory(a, "sneaky", 4)])
            with pytest.raises(ScopeError):
                await store.search("", unit(1), 3)
            assert await store.get(a, ["sneaky"]) == []

        self.run_case(case)

    def test_bad_input(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            with pytest.raises(InputError, match="has no vector"):
                await store.upsert(ws, [Memory(workspace_id=ws, content="no vector")])
            with pytest.raises(InputError, match="appears twice"):
                await store.upsert(ws, [memory(ws, "x", 1), memory(ws, "x", 2)])
            await store.upsert(ws, [memory(ws, "ok", 1)])
            wide = Memory(workspace_id=ws, content="wide", vector=np.ones(len(unit(0)) + 4, dtype=np.float32))
            with pytest.raises(DimensionMismatchError, match=rf"{len(unit(0))}.*{len(unit(0)) + 4}"):
                await store.upsert(ws, [wide])
            assert await store.count(ws) == 1

        self.run_case(case)

    def test_one_id_rule_on_every_store(self) -> None:
        # Every store accepts these and refuses those (rules.ID_RULE), before any backend sees them.
        accepted = ["a", "x" * 256, "日本語-メモ", "emoji 🧠 id", "a/b:c?d#e&f=g%20", "uuid-" + uuid.uuid4().hex]
        refused = ["x" * 257, "y" * 32_000, "tab\there", "new\nline", "nul\x00", "del\x7f", "c1\x85"]

        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            await store.upsert(ws, [memory(ws, memory_id, seed) for seed, memory_id in enumerate(accepted)])
            assert [m.memory_id for m in await store.get(ws, accepted)] == accepted
            for seed, bad in enumerate(refused):
                with pytest.raises(InputError, match="an id is 1 to 256 characters, none of them a control"):
                    await store.upsert(ws, [memory(ws, "fine", seed), memory(ws, bad, seed)])
                with pytest.raises(InputError, match="1 to 256 characters"):
                    await store.write(ws, history=[HistoryEvent.of("delete", old=memory(ws, bad, seed))])
                with pytest.raises(InputError, match="1 to 256 characters"):
                    await store.write(ws, user_id="alice", memorized=["fine", bad])
                with pytest.raises(InputError, match="1 to 256 characters"):
                    await store.write(ws, user_id=bad, memorized=["fine"])
            assert await store.count(ws) == len(accepted)  # nothing of a refused write was stored
            assert await store.history(ws) == [] and await store.memorized(ws, "alice", ["fine"]) == set()
            await store.write(ws, user_id=accepted[1], memorized=accepted)
            assert await store.memorized(ws, accepted[1], accepted) == set(accepted)

        self.run_case(case)

    def test_targets_are_whom_the_workspaces_memories_are_about(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, other = self.workspace(), self.workspace()
            await store.upsert(ws, [memory(ws, f"m{i}", i, target=user)
                                    for i, user in enumerate(["bob", "alice", "bob", "carol"], 1)])  # fmt: skip
            await store.upsert(other, [memory(other, "x", 5, target="dora")])
            assert await store.targets(ws) == ["alice", "bob", "carol"]
            await store.delete(ws, ["m4"])  # carol's only memory: she is no longer a target
            assert await store.targets(ws) == ["alice", "bob"]
            assert await store.targets(self.workspace()) == []

        self.run_case(case)

    def test_empty_workspace(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            assert await store.search(ws, unit(1), 5) == []
            assert await store.count(ws) == 0
            assert await store.get(ws, ["x"]) == []
            assert await store.delete(ws, ["x"]) == 0
            assert [b async for b in store.iterate(ws)] == []

        self.run_case(case)
