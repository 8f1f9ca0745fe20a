"""The index's kept (created, id) order stays right through small puts (inserted), large ones (re-sorted),
overwrites that move a row, deletes and compaction: adjacent() and matching_ids() against a sorted reference."""

from __future__ import annotations

import random

import numpy as np

from flowmem.vector_store.filters import PART_FIELDS, MemoryFilter
from flowmem.vector_store.index import ORDER_INSERTS, Row, WorkspaceIndex

DIMS = 4


def row(memory_id: str, created: int, target: str = "alice") -> Row:
    return Row(memory_id, target, "conversation", "valid", (-1,) * len(PART_FIELDS), created, ())


def test_the_order_survives_every_kind_of_change() -> None:
    rng = random.Random(5)
    index, stored = WorkspaceIndex(DIMS), {}  # stored: id -> (created, target)
    flt = MemoryFilter(target="alice")
    for step in range(60):
        size = ORDER_INSERTS * 3 if step % 20 == 0 else rng.randint(1, 8)
        rows = [
            row(f"m{rng.randrange(3_000):04d}", rng.randrange(5), rng.choice(["alice", "bob"])) for _ in range(size)
        ]
        rows = list({r.memory_id: r for r in rows}.values())
        index.put(rows, np.ones((len(rows), DIMS), dtype=np.float32))
        stored.update({r.memory_id: (r.created, r.target) for r in rows})
        for memory_id in rng.sample(sorted(stored), min(len(stored), rng.randint(0, 4))):
            index.remove(memory_id)
            del stored[memory_id]
        if step == 30:
            index._compact()  # what many deletes trigger: rows renumbered
        reference = sorted((c, i) for i, (c, t) in stored.items() if t == "alice")
        assert index.matching_ids(flt) == [i for _, i in reference]
        created, memory_id = rng.randrange(5), f"m{rng.randrange(3_000):04d}"
        earlier, later = index.adjacent(created, memory_id, flt, 3, 3)
        before = [i for c, i in reference if (c, i) < (created, memory_id)][-3:][::-1]
        after = [i for c, i in reference if (c, i) > (created, memory_id)][:3]
        assert (earlier, later) == (before, after)


def test_masks_follow_every_change() -> None:
    # The index remembers the one_of part of recent masks (target, status, type) until it changes: a mask after
    # puts that change a row's target, status or type, deletes and compaction is what the rows now say.
    rng = random.Random(11)
    index, stored = WorkspaceIndex(DIMS), {}  # stored: id -> (target, memory type, status)
    filters = [MemoryFilter(target="alice", status="valid"), MemoryFilter(target=("alice", "carol")),
               MemoryFilter(memory_type=("insight",), status="expired"), MemoryFilter(target="carol")]  # fmt: skip
    for step in range(80):
        rows = [
            Row(f"m{rng.randrange(400):03d}", rng.choice(["alice", "bob", "carol"]),
                rng.choice(["conversation", "insight"]), rng.choice(["valid", "expired"]),
                (-1,) * len(PART_FIELDS), rng.randrange(5), ())
            for _ in range(rng.randint(1, 6))
        ]  # fmt: skip
        rows = list({r.memory_id: r for r in rows}.values())
        index.put(rows, np.ones((len(rows), DIMS), dtype=np.float32))
        stored.update({r.memory_id: (r.target, r.memory_type, r.status) for r in rows})
        for memory_id in rng.sample(sorted(stored), min(len(stored), rng.randint(0, 3))):
            index.remove(memory_id)
            del stored[memory_id]
        if step % 25 == 24:
            index._compact()
        for flt in filters:
            for _ in range(2):  # the second time from what the index remembers
                wanted = {i for i, (t, k, s) in stored.items()
                          if (flt.target is None or t in flt.target) and (flt.status is None or s in flt.status)
                          and (flt.memory_type is None or k in flt.memory_type)}  # fmt: skip
                assert set(index.matching_ids(flt)) == wanted
