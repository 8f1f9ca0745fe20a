"""A store's index loaded from its file in one put (every row new) is the index the same rows put one at a time
make: every column, the keyword postings, searches, filters and the BM25 statistics and scores."""

from __future__ import annotations

import random

import numpy as np

from flowmem.schema.memory import MEMORY_TYPES
from flowmem.vector_store.filters import PART_FIELDS, MemoryFilter
from flowmem.vector_store.index import ORDER_INSERTS, Row, WorkspaceIndex
from flowmem.vector_store.lexical_text import BM25Index

DIMS = 8
WORDS = ("tennis", "chess", "club", "river", "ducks", "walk", "dell", "lumen", "dentist", "filling", "sister", "nurse")


def rows_and_vectors(count: int, seed: int) -> tuple[list[Row], np.ndarray]:
    rng = random.Random(seed)
    rows = []
    for i in range(count):
        slots = rng.choice([None, {}, {"employer": f"company {i % 7}"}, {"pet": "dog", "diet": "vegetarian"}])
        rows.append(Row(
            f"m{i:05d}", rng.choice(["alice", "bob", "carol"]), rng.choice(MEMORY_TYPES),
            rng.choice(["valid", "expired"]),
            tuple(rng.randrange(-1, 12) for _ in PART_FIELDS), rng.randrange(50), (f"msg{i % 5}",),
            rng.randrange(100), rng.randrange(100), rng.randrange(100), slots,
        ))  # fmt: skip
    vectors = np.random.default_rng(seed).standard_normal((count, DIMS)).astype(np.float32)
    return rows, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_a_load_is_the_index_of_the_same_rows_put_one_by_one() -> None:
    rows, vectors = rows_and_vectors(ORDER_INSERTS * 5, 3)
    loaded, one_by_one = WorkspaceIndex(DIMS), WorkspaceIndex(DIMS)
    loaded.put(rows, vectors)
    for row, vector in zip(rows, vectors, strict=True):
        one_by_one.put([row], vector[None, :])
    for column in ("vectors", "alive", "target", "memory_type", "status", "parts", "created", "times"):
        assert np.array_equal(getattr(loaded, column)[: loaded.n], getattr(one_by_one, column)[: one_by_one.n]), column
    for kept in ("ids", "sources", "keywords", "row_of", "_postings", "_target_codes"):
        assert getattr(loaded, kept) == getattr(one_by_one, kept), kept
    query = vectors[7] + vectors[11]
    for flt in (MemoryFilter(), MemoryFilter(target="bob", status="valid"), MemoryFilter(slot_values=["dog"])):
        assert loaded.search(query, 10, flt) == one_by_one.search(query, 10, flt)
        assert loaded.matching_ids(flt) == one_by_one.matching_ids(flt)
    # later writes to a loaded index go as to any other: an overwrite, a removal, new rows
    more, more_vectors = rows_and_vectors(10, 4)
    for index in (loaded, one_by_one):
        index.put([rows[3], *more[:3]], np.vstack([vectors[5], more_vectors[:3]]))
        index.remove(rows[9].memory_id)
    assert loaded.search(query, 20, MemoryFilter()) == one_by_one.search(query, 20, MemoryFilter())


def test_a_load_with_a_row_already_in_the_index_or_given_twice_goes_row_by_row() -> None:
    rows, vectors = rows_and_vectors(ORDER_INSERTS * 2, 5)
    index, reference = WorkspaceIndex(DIMS), WorkspaceIndex(DIMS)
    for target in (index, reference):
        target.put(rows[:1], vectors[:1])
    index.put(rows + rows[:2], np.vstack([vectors, vectors[:2]]))  # m00000 known, m00001 twice: the last one holds
    for row, vector in zip(rows + rows[:2], np.vstack([vectors, vectors[:2]]), strict=True):
        reference.put([row], vector[None, :])
    assert index.ids == reference.ids and len(index) == len(rows)
    assert np.array_equal(index.vectors[: index.n], reference.vectors[: reference.n])


def test_bm25_put_many_into_an_empty_index_is_put_one_by_one() -> None:
    rng = random.Random(9)
    documents = [(f"m{i:04d}", " ".join(rng.choices(WORDS, k=rng.randint(0, 9)))) for i in range(400)]
    documents += [("m0003", "dentist filling"), ("m0401", "sister nurse")]  # one memory given twice: its last text
    loaded, one_by_one = BM25Index(), BM25Index()
    loaded.put_many(documents)
    for memory_id, text in documents:
        one_by_one.put(memory_id, text)
    assert len(loaded) == len(one_by_one) == 401
    for kept in ("_slots", "_ids", "_terms", "_postings", "_total_length"):
        assert getattr(loaded, kept) == getattr(one_by_one, kept), kept
    for terms in (["tennis"], ["dentist", "filling"], ["nurse", "club", "walk"], ["absent"]):
        assert loaded.top(terms, 15) == one_by_one.top(terms, 15)
    # into an index holding something, put_many is put for each
    loaded.put_many([("m0005", "lumen dell"), ("m0999", "river")])
    one_by_one.put("m0005", "lumen dell")
    one_by_one.put("m0999", "river")
    assert loaded.top(["river", "dell"], 20) == one_by_one.top(["river", "dell"], 20)
