"""Part of the vector store conformance suite: the rules the store base owns, proven on every store.

* Filters: every condition of :class:`~flowmem.vector_store.filters.MemoryFilter` (each field alone,
  and combined) selects in ``search``, ``count`` and ``iterate`` exactly the memories
  :meth:`~flowmem.vector_store.filters.MemoryFilter.matches` (the reference semantics) selects, so the
  stores' own filters (a numpy mask, an Elasticsearch query) can never drift from it; and a condition
  a store cannot apply is refused, never ignored.
* Width: writes and query vectors are checked against the store's width, in any workspace.
* Scope: the reads whose answers the base cannot filter (counts, ledger lookups, erase counts) stay
  inside their workspace.

:class:`~flowmem.testing.conformance.VectorStoreConformance` includes these tests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import ClassVar

import numpy as np
import pytest

from flowmem.core.errors import InputError
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.testing.store_harness import DIMS, StoreHarness, memory, unit
from flowmem.vector_store.base import DimensionMismatchError, VectorStore
from flowmem.vector_store.filters import UNREAD_SLOTS, FilterSpec, MemoryFilter
from flowmem.vector_store.rules import UnsupportedFilterError

BASE = datetime(2024, 5, 1, 9)
TYPES = ("conversation", "observation", "obs_customized", "insight")
TARGETS = ("alice", "bob", "李雷", "")


class KeywordFilter(MemoryFilter):
    """A filter with a condition no store applies (on ``keywords``): stores must refuse it."""

    keyword: str | None = None
    FIELDS: ClassVar[dict[str, FilterSpec]] = {**MemoryFilter.FIELDS, "keyword": FilterSpec("contains", "keywords")}


def corpus(ws: str) -> list[Memory]:
    """Memories that differ in every filtered field, with times on and around second boundaries."""
    memories = []
    for i in range(24):
        created = BASE + timedelta(hours=7 * i, milliseconds=250 * (i % 4))
        m = memory(
            ws, f"m{i:02d}", i, target=TARGETS[i % 4], memory_type=TYPES[i % 3 + (i % 2)],
            status="expired" if i % 5 == 0 else "valid", created_at=created,
            source=[f"msg{i % 3}", f"msg{i % 7}"] if i % 6 else [], keywords=["k"],
        )  # fmt: skip
        if i % 5 != 4:  # slots stored (some none), else never read
            m.metadata["slots"] = {f"s{i % 3}": f"v{i % 4}", "home": "x"} if i % 2 else {}
        if i % 3 == 0:
            m = m.with_message_time(created)
        if i % 4 == 1:  # an event range, its ends within a second
            start = created + timedelta(days=1, milliseconds=300)
            m = m.with_event_time(start, start=start, end=start + timedelta(hours=5, milliseconds=400))
        elif i % 4 == 2:  # event parts only: the day, or the hour
            m = m.with_event_time(created + timedelta(days=2))
            if i % 8 == 2:
                m = m.model_copy(update={"event_hour": -1})
        memories.append(m)
    # created just before 1970, within a second of it: time conditions floor to the earlier second
    memories.append(memory(ws, "old", 99, created_at=datetime(1969, 12, 31, 23, 59, 59, 500000)))
    return memories


def filters_to_try() -> list[MemoryFilter]:
    """Each field alone (with edge values), then combinations."""
    at = BASE + timedelta(hours=7 * 5)  # m05 was created 0.25 s after this
    event = BASE + timedelta(hours=7 * 9, days=1)  # around m09's event range
    alone = [
        MemoryFilter(target="alice"), MemoryFilter(target=["bob", "李雷"]), MemoryFilter(target=""),
        MemoryFilter(target=[]), MemoryFilter(target="nobody"),
        *(MemoryFilter(memory_type=t) for t in TYPES), MemoryFilter(memory_type=["insight", "conversation"]),
        MemoryFilter(status="expired"), MemoryFilter(status=["valid", "expired"]),
        MemoryFilter(parts={"msg_day": 2}), MemoryFilter(parts={"msg_hour": 9, "msg_weekday": 3}),
        MemoryFilter(parts={"event_day": -1}), MemoryFilter(parts={"event_hour": -1, "event_year": 2024}),
        MemoryFilter(created_after=at), MemoryFilter(created_after=at + timedelta(milliseconds=500)),
        MemoryFilter(created_after=at + timedelta(seconds=1)), MemoryFilter(created_before=at),
        MemoryFilter(created_before=at + timedelta(milliseconds=500)),
        MemoryFilter(created_before=datetime(1970, 1, 1)),
        MemoryFilter(created_after=datetime(1969, 12, 31, 23, 59, 59)),
        MemoryFilter(source="msg1"), MemoryFilter(source="msg6"), MemoryFilter(source="nope"),
        MemoryFilter(said_between=(BASE, BASE + timedelta(days=3))),
        MemoryFilter(said_between=(BASE + timedelta(hours=21), BASE + timedelta(hours=21, milliseconds=1))),
        MemoryFilter(happens_between=(BASE, BASE + timedelta(days=4))),
        MemoryFilter(happens_between=(event, event + timedelta(milliseconds=300))),
        MemoryFilter(happens_between=(event + timedelta(milliseconds=300), event + timedelta(seconds=1))),
        MemoryFilter(happens_between=(event + timedelta(hours=5, milliseconds=500), event + timedelta(days=1))),
        MemoryFilter(happens_between=(event + timedelta(hours=5, seconds=1), event + timedelta(days=1))),
        MemoryFilter(slots="s1"), MemoryFilter(slots=["s0", "s2"]), MemoryFilter(slots=[UNREAD_SLOTS]),
        MemoryFilter(slots=["home", UNREAD_SLOTS]), MemoryFilter(slots=[]), MemoryFilter(slot_values="v1"),
        MemoryFilter(slot_values=["v0", "x"]), MemoryFilter(slot_values=["s1"]),
    ]  # fmt: skip
    together = [
        MemoryFilter(target="alice", status="valid", memory_type=["observation", "insight"]),
        MemoryFilter(created_after=BASE + timedelta(days=1), created_before=BASE + timedelta(days=4), source="msg0"),
        MemoryFilter(said_between=(BASE, BASE + timedelta(days=9)), parts={"msg_hour": 16}, target=["alice", "bob"]),
        MemoryFilter(happens_between=(BASE, BASE + timedelta(days=9)), status="valid", target="bob"),
        MemoryFilter(slots=["s1", UNREAD_SLOTS], slot_values="v3", status="valid", target=["bob", "alice"]),
        MemoryFilter(
            target=TARGETS,
            memory_type=TYPES,
            status="valid",
            parts={"msg_year": 2024},
            source="msg0",
            created_after=BASE,
            created_before=BASE + timedelta(days=30),
            said_between=(BASE, BASE + timedelta(days=30)),
        ),
    ]
    return alone + together


class RulesConformance(StoreHarness):
    """Filters, widths and the scope of unfilterable reads (mixed into the whole suite)."""

    # -- filters -------------------------------------------------------------------------------
    def test_every_filter_condition_selects_what_matches_selects(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            memories = corpus(ws)
            await store.upsert(ws, memories)
            covered: set[str] = set()
            for flt in filters_to_try():
                covered.update(name for name, _, _ in flt.conditions())
                expected = sorted(m.memory_id for m in memories if flt.matches(m))
                found = await store.search(ws, unit(0), len(memories) + 5, flt)
                assert sorted(m.memory_id for m in found) == expected, flt
                assert await store.count(ws, flt) == len(expected), flt
                iterated = [m.memory_id async for batch in store.iterate(ws, flt, batch_size=7) for m in batch]
                assert sorted(iterated) == expected, flt
            assert covered == set(MemoryFilter.FIELDS), "every condition is tried"

        self.run_case(case)

    def test_a_condition_the_store_cannot_apply_is_refused(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            await store.upsert(ws, [memory(ws, "a", 1, keywords=["x"]), memory(ws, "b", 2, target="bob")])
            refused = KeywordFilter(keyword="x")
            assert refused.matches((await store.get(ws, ["a"]))[0])  # the reference knows it; no store applies it
            with pytest.raises(UnsupportedFilterError, match="cannot filter on keyword; it filters on created_after"):
                await store.search(ws, unit(1), 5, refused)
            with pytest.raises(UnsupportedFilterError, match="cannot filter on keyword"):
                await store.count(ws, refused)
            with pytest.raises(UnsupportedFilterError, match="cannot filter on keyword"):
                [m async for batch in store.iterate(ws, refused) for m in batch]
            with pytest.raises(UnsupportedFilterError):  # refused even where there is nothing to search
                await store.count(self.workspace(), refused)
            # the same filter class without that condition is applied as usual
            assert [m.memory_id for m in await store.search(ws, unit(1), 5, KeywordFilter(target="bob"))] == ["b"]

        self.run_case(case)

    # -- width ---------------------------------------------------------------------------------
    def test_one_width_for_writes_and_queries_in_every_workspace(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, empty = self.workspace(), self.workspace()
            wide = np.ones(DIMS + 4, dtype=np.float32)
            await store.upsert(ws, [memory(ws, "m", 1)])
            for where in (ws, empty):  # a workspace without memories has the store's width too
                with pytest.raises(
                    DimensionMismatchError, match=rf"holds {DIMS}-dim vectors, got {DIMS + 4}-dim query"
                ):
                    await store.search(where, wide, 3)
                with pytest.raises(
                    DimensionMismatchError, match=rf"holds {DIMS}-dim vectors, got {DIMS + 4}-dim vectors"
                ):
                    await store.upsert(where, [Memory(workspace_id=where, content="w", vector=wide)])
                with pytest.raises(DimensionMismatchError, match="a store holds one width"):
                    await store.write(where, [Memory(workspace_id=where, content="w", vector=wide)], user_id="u",
                                      memorized=["x"])  # fmt: skip
            with pytest.raises(DimensionMismatchError, match=rf"mixes vectors of \[{DIMS}, {DIMS + 4}\] dimensions"):
                await store.upsert(ws, [memory(ws, "a", 2), Memory(workspace_id=ws, content="w", vector=wide)])
            assert await store.count(ws) == 1 and await store.count(empty) == 0
            assert await store.memorized(empty, "u", ["x"]) == set()  # a refused write wrote nothing

        self.run_case(case)

    # -- ids on reads ----------------------------------------------------------------------------
    def test_the_id_rule_refuses_reads_too(self) -> None:
        # A read with a workspace, user, session or memory id no write could have stored is refused before
        # any backend sees it (a 900 KB workspace id made every store keep a cache entry under it).
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            await store.upsert(ws, [memory(ws, "m", 1, target="alice")])
            rule = "an id is 1 to 256 characters, none of them a control"
            for bad in ("w" * 900_000, "w" * 257, "new\nline"):
                reads: list[tuple[Callable[..., Awaitable[object]], tuple[object, ...]]] = [
                    (store.search, (bad, unit(1), 3)), (store.search_many, (bad, unit(1), [(3, None)])),
                    (store.lexical_search, (bad, "memory", 3)), (store.get, (bad, ["m"])), (store.count, (bad,)),
                    (store.history, (bad,)), (store.memorized, (bad, "alice", ["x"])), (store.workspace_stats, (bad,)),
                    (store.get_session, (bad, "alice", "s1")), (store.get_session, (ws, bad, "s1")),
                    (store.get_session, (ws, "alice", bad)), (store.get, (ws, ["m", bad])), (store.history, (ws, bad)),
                    (store.memorized, (ws, bad, ["x"])), (store.delete, (ws, [bad])),
                    (store.stored_vectors, (bad, ["m"])), (store.stored_vectors, (ws, ["m", bad])),
                    (store.similarities, (bad, unit(1), ["m"])), (store.similarities, (ws, unit(1), ["m", bad])),
                ]  # fmt: skip
                for read, args in reads:
                    with pytest.raises(InputError, match=rule):
                        await read(*args)
                with pytest.raises(InputError, match=rule):
                    [m async for batch in store.iterate(bad) for m in batch]
            assert [m.memory_id for m in await store.get(ws, ["m"])] == ["m"]  # valid ids read as before

        self.run_case(case)

    def test_stored_vectors_are_what_get_reads_and_stay_in_their_workspace(self) -> None:
        async def case(store: VectorStore) -> None:
            a, b = self.workspace(), self.workspace()
            await store.upsert(a, [memory(a, "m1", 1), memory(a, "m2", 2, status="expired"), memory(a, "m3", 3)])
            await store.upsert(b, [memory(b, "only-b", 4)])
            got = {m.memory_id: m.vector for m in await store.get(a, ["m2", "m1", "m3"], with_vectors=True)}
            found = await store.stored_vectors(a, ["m2", "m1", "nowhere", "only-b", "m1"])
            assert sorted(found) == ["m1", "m2"]
            assert all(np.array_equal(found[i], got[i]) and found[i].dtype == np.float32 for i in found)
            found["m1"][0] = 42.0  # the caller's copy
            assert np.array_equal((await store.stored_vectors(a, ["m1"]))["m1"], got["m1"])
            assert await store.stored_vectors(a, []) == {}
            assert await store.stored_vectors(self.workspace(), ["m1"]) == {}

        self.run_case(case)

    def test_similarities_are_the_dot_products_of_the_stored_vectors_in_their_workspace(self) -> None:
        async def case(store: VectorStore) -> None:
            a, b = self.workspace(), self.workspace()
            await store.upsert(a, [memory(a, f"m{i}", i, status="expired" if i == 2 else "valid") for i in range(1, 8)])
            await store.upsert(b, [memory(b, "only-b", 40), memory(b, "m1", 41)])
            query = unit(99)
            asked = ["m2", "m1", "nowhere", "only-b", "m1", "m7", "m5"]
            stored = await store.stored_vectors(a, asked)
            found = await store.similarities(a, query, asked)
            assert sorted(found) == ["m1", "m2", "m5", "m7"]  # any status; unknown ids and b's memories left out
            for i, cosine in found.items():
                assert isinstance(cosine, float)
                assert cosine == pytest.approx(float(np.dot(stored[i], query)), abs=1e-6)
            assert await store.similarities(a, query, []) == {}
            assert await store.similarities(self.workspace(), query, ["m1"]) == {}
            [other] = (await store.similarities(b, query, ["m1"])).values()  # b's m1, not a's
            assert other == pytest.approx(float(np.dot(unit(41), query)), abs=1e-6)

        self.run_case(case)

    # -- the scope of reads the base cannot filter ---------------------------------------------
    def test_counts_ledgers_and_erasure_stay_in_their_workspace(self) -> None:
        async def case(store: VectorStore) -> None:
            a, b = self.workspace(), self.workspace()
            for ws in (a, b):  # the same ids, users, messages and history in both
                memories = corpus(ws)
                await store.write(
                    ws, memories, history=[HistoryEvent.of("add", new=m) for m in memories[:3]],
                    user_id="alice", memorized=["msg0", "msg1"],
                )  # fmt: skip
            await store.write(a, [memory(a, "a-only", 5, target="alice")], user_id="alice", memorized=["msg2"])
            await store.write(a, history=[HistoryEvent.of("delete", old=corpus(a)[0])], deleted=["m00"])
            for flt in [None, *filters_to_try()]:
                listed = [m async for batch in store.iterate(b, flt) for m in batch]
                assert await store.count(b, flt) == len(listed), flt
                assert all(m.workspace_id == b for m in listed)
            assert await store.count(b) == len(corpus(b)) and await store.count(a) == len(corpus(a))
            assert await store.memorized(b, "alice", ["msg0", "msg1", "msg2"]) == {"msg0", "msg1"}
            assert len(await store.history(b)) == 3 and len(await store.history(a)) == 4
            assert (await store.workspace_stats(b))["memories"] == len(corpus(b))
            assert await store.delete(b, ["a-only"]) == 0
            assert await store.forget(b, "alice", dry_run=True) == {
                "memories": 6,
                "messages": 2,
                "history": 1,
                "sessions": 0,
            }
            assert await store.forget(b) == {"memories": len(corpus(b)), "messages": 2, "history": 3, "sessions": 0}
            assert await store.count(a) == len(corpus(a)) and len(await store.history(a)) == 4
            assert await store.memorized(a, "alice", ["msg0", "msg1", "msg2"]) == {"msg0", "msg1", "msg2"}

        self.run_case(case)
