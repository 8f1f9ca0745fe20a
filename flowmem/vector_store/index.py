"""Exact, vectorised cosine search over one workspace, with the columns filters need.

Used by the ``memory`` and ``local`` stores. Vectors are unit-length float32 rows, so cosine
similarity is one matrix-vector product; filters are boolean masks over integer columns.
Rows are overwritten in place on upsert and tombstoned on delete; the arrays are compacted
once more than half the rows are dead.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from flowmem.core import blas
from flowmem.schema.memory import MEMORY_TYPES, Memory
from flowmem.vector_store.filters import (
    PART_FIELDS,
    FilterSpec,
    MemoryFilter,
    created_epoch,
    event_span,
    slot_keywords,
    stored_slots,
)
from flowmem.vector_store.turns import TurnRuns

TYPE_CODES: dict[str, int] = {name: code for code, name in enumerate(MEMORY_TYPES)}
STATUS_CODES = {"valid": 0, "expired": 1}
PART_COLUMN = {name: i for i, name in enumerate(PART_FIELDS)}
NO_TIME = -(2**62)  # "unknown" in the time columns: matches no range
# What this index can filter on (the stores built on it declare these to the base's filter check).
SUBJECTS = frozenset(
    {"target", "memory_type", "status", "parts", "created_at", "said_at", "event_span", "source", "slot_names",
     "slot_values"}
)  # fmt: skip
# The keyword subjects kept as postings (keyword -> rows): a condition on them costs what it finds, not the rows.
POSTED = ("slot_names", "slot_values")
_parts = operator.attrgetter(*PART_FIELDS)
# A put of at most this many new rows inserts each into the kept (created, id) order; a larger one
# (a bulk load) drops the order, to be sorted once when next read.
ORDER_INSERTS = 64
CREATED_BOUNDS = ("created_after", "created_before")  # the filter's conditions that are a slice of the kept order
CODED_MASKS = 16  # how many filters' one_of masks an index remembers (n bytes each)
SAMPLED_TOP = 64  # a search of at least this many times k scored rows finds its best above a sampled threshold


def time_columns(memory: Memory) -> tuple[int, int, int]:
    """(message time, event start, event end) as epoch seconds, ``NO_TIME`` when unknown."""
    said = memory.message_time
    span = event_span(memory)
    return (
        created_epoch(said) if said is not None else NO_TIME,
        created_epoch(span[0]) if span is not None else NO_TIME,
        created_epoch(span[1]) if span is not None else NO_TIME,
    )


@dataclass(frozen=True)
class Row:
    """What the index keeps of a memory (everything filters and ordering need)."""

    memory_id: str
    target: str
    memory_type: str
    status: str
    parts: tuple[int, ...]
    created: int
    sources: tuple[str, ...]
    said: int = NO_TIME
    event_from: int = NO_TIME
    event_to: int = NO_TIME
    slots: dict[str, str] | None = None  # metadata["slots"] (None: never read)

    @classmethod
    def of(cls, memory: Memory) -> Row:
        return cls(
            memory.memory_id,
            memory.target,
            memory.memory_type,
            memory.status,
            _parts(memory),
            created_epoch(memory.created_at),
            tuple(memory.source),
            *time_columns(memory),
            stored_slots(memory.metadata),
        )


class WorkspaceIndex:
    """The searchable rows of one workspace."""

    def __init__(self, dims: int):
        self.dims = dims
        self.n = 0
        self.dead = 0
        self.vectors = np.zeros((0, dims), dtype=np.float32)
        self.alive = np.zeros(0, dtype=bool)
        self.target = np.zeros(0, dtype=np.int32)
        self.memory_type = np.zeros(0, dtype=np.int8)
        self.status = np.zeros(0, dtype=np.int8)
        self.parts = np.zeros((0, len(PART_FIELDS)), dtype=np.int32)
        self.created = np.zeros(0, dtype=np.int64)
        self.times = np.zeros((0, 3), dtype=np.int64)  # said, event_from, event_to
        self.ids: list[str] = []
        self.sources: list[tuple[str, ...]] = []
        self.keywords: list[dict[str, tuple[str, ...]]] = []  # each row's keywords of the POSTED subjects
        self._postings: dict[str, dict[str, set[int]]] = {subject: {} for subject in POSTED}
        self.row_of: dict[str, int] = {}
        self._target_codes: dict[str, int] = {}
        # Row positions ordered by (created, id), dead rows included (masks leave them out), and their created
        # column in that order: what adjacent() searches. None until first needed after a large or reordering put.
        self._order: np.ndarray | None = None
        self._order_created: np.ndarray | None = None
        # alive & the one_of conditions (target, status, type) of recent filters, until the next write: every query
        # masks the same few (its searches, word recall, each neighbour read), and so do the next queries.
        self._coded_masks: dict[tuple[tuple[str, Any], ...], np.ndarray] = {}

    def __len__(self) -> int:
        return self.n - self.dead

    # -- writing -------------------------------------------------------------------------------
    def put(self, rows: list[Row], vectors: np.ndarray) -> None:
        """Insert or overwrite ``rows`` with their unit ``vectors``."""
        self._coded_masks.clear()
        fresh = sum(1 for row in rows if row.memory_id not in self.row_of)
        self._reserve(self.n + fresh)
        if fresh > ORDER_INSERTS:
            self._order = None  # many rows: sorting them all once, when next needed, is cheaper than inserting each
            if fresh == len(rows) and len({row.memory_id for row in rows}) == fresh:
                self._append(rows, vectors)  # a load: every row new, each once
                return
        for row, vector in zip(rows, vectors, strict=True):
            at = self.row_of.get(row.memory_id)
            if at is None:
                at = self.n
                self.n += 1
                self.row_of[row.memory_id] = at
                self.ids.append(row.memory_id)
                self.sources.append(row.sources)
                self.keywords.append({})
                self.created[at] = row.created
                self._ordered_insert(at)
            else:
                self.sources[at] = row.sources
                if self.created[at] != row.created:
                    self._order = None  # its place in the order moves
            self._post(at, slot_keywords(row.slots))
            self.vectors[at] = vector
            self.alive[at] = True
            self.target[at] = self._target_code(row.target)
            self.memory_type[at] = TYPE_CODES[row.memory_type]
            self.status[at] = STATUS_CODES[row.status]
            self.parts[at] = row.parts
            self.created[at] = row.created
            self.times[at] = (row.said, row.event_from, row.event_to)

    def _append(self, rows: list[Row], vectors: np.ndarray) -> None:
        """Put ``rows``, none of them in the index yet and no two alike, after the last row: what :meth:`put` does
        one row at a time, column by column (a store's index loaded from its file: 10k rows ~4x faster)."""
        start, end = self.n, self.n + len(rows)
        ids = [row.memory_id for row in rows]
        self.ids.extend(ids)
        self.row_of.update(zip(ids, range(start, end), strict=True))
        self.sources.extend(row.sources for row in rows)
        self.keywords.extend({} for _ in rows)
        self.n = end
        self.vectors[start:end] = vectors
        self.alive[start:end] = True
        self.target[start:end] = [self._target_code(row.target) for row in rows]
        self.memory_type[start:end] = [TYPE_CODES[row.memory_type] for row in rows]
        self.status[start:end] = [STATUS_CODES[row.status] for row in rows]
        self.parts[start:end] = [row.parts for row in rows]
        self.created[start:end] = [row.created for row in rows]
        self.times[start:end] = [(row.said, row.event_from, row.event_to) for row in rows]
        for at, row in enumerate(rows, start):
            self._post(at, slot_keywords(row.slots))

    def remove(self, memory_id: str) -> bool:
        """Tombstone ``memory_id``; whether it was there."""
        at = self.row_of.pop(memory_id, None)
        if at is None:
            return False
        self._coded_masks.clear()
        self.alive[at] = False
        self._post(at, {})
        self.dead += 1
        if self.dead > 1024 and self.dead * 2 > self.n:
            self._compact()
        return True

    # -- reading -------------------------------------------------------------------------------
    def mask(self, flt: MemoryFilter, *, leave_out: tuple[str, ...] = ()) -> np.ndarray:
        """Rows that are alive and meet ``flt`` (each condition as its :class:`FilterSpec` declares), but for its
        conditions named in ``leave_out``."""
        conditions = [condition for condition in flt.conditions() if condition[0] not in leave_out]
        coded = [(spec, value) for _, spec, value in conditions if spec.kind == "one_of"]
        keep: np.ndarray = self._coded_mask(coded).copy()
        for _name, spec, value in conditions:
            if spec.kind != "one_of":
                keep &= self._condition(spec, value)
        return keep

    def _coded_mask(self, coded: list[tuple[FilterSpec, Any]]) -> np.ndarray:
        """Alive rows meeting the ``one_of`` conditions ``coded``: remembered until the index changes (never change
        what this returns)."""
        key = tuple((spec.subject, value) for spec, value in coded)
        found = self._coded_masks.get(key)
        if found is None:
            found = self.alive[: self.n].copy()
            for spec, value in coded:
                found &= self._condition(spec, value)
            if len(self._coded_masks) >= CODED_MASKS:
                self._coded_masks.clear()
            self._coded_masks[key] = found
        return found

    def _condition(self, spec: FilterSpec, value: Any) -> np.ndarray:
        n, kind, subject = self.n, spec.kind, spec.subject
        result: np.ndarray
        if kind == "one_of":
            codes, column = self._codes(subject), self._coded(subject)[:n]
            # One comparison per wanted code, not np.isin: the same rows, 10-20x faster for the few codes a filter
            # names (every search masks target, status and type: np.isin was half the cost of a 10k mask).
            result = np.zeros(n, dtype=bool)
            for code in {codes[v] for v in value if v in codes}:
                result |= column == code
        elif kind == "parts":
            result = np.ones(n, dtype=bool)
            for name, part in value:
                result &= self.parts[:n, PART_COLUMN[name]] == part
        elif kind == "contains":
            result = np.fromiter((value in row for row in self._lists(subject)[:n]), dtype=bool, count=n)
        elif kind == "shares":
            result = np.zeros(n, dtype=bool)
            postings = self._postings[subject]
            rows = [at for keyword in value for at in postings.get(keyword, ())]
            result[rows] = True
        elif kind == "overlaps":
            start, end = self._span(subject)
            low, high = created_epoch(value[0]), created_epoch(value[1])
            result = (start[:n] != NO_TIME) & (start[:n] < high) & (end[:n] > low)
        else:  # the time kinds; unknown ("unknown" = NO_TIME) meets none of them
            column = self._time(subject)[:n]
            result = column != NO_TIME
            if kind == "within":
                result &= (column >= created_epoch(value[0])) & (column < created_epoch(value[1]))
            elif kind == "at_least":
                result &= column >= created_epoch(value)
            else:  # before
                result &= column < created_epoch(value)
        return result

    # The columns behind each subject this index filters on (SUBJECTS); kinds pick them by the subject's type.
    def _coded(self, subject: str) -> np.ndarray:
        columns: dict[str, np.ndarray] = {"target": self.target, "memory_type": self.memory_type, "status": self.status}
        return columns[subject]

    def _codes(self, subject: str) -> dict[str, int]:
        return {"target": self._target_codes, "memory_type": TYPE_CODES, "status": STATUS_CODES}[subject]

    def _time(self, subject: str) -> np.ndarray:
        return {"created_at": self.created, "said_at": self.times[:, 0]}[subject]

    def _span(self, subject: str) -> tuple[np.ndarray, np.ndarray]:
        return {"event_span": (self.times[:, 1], self.times[:, 2])}[subject]

    def _lists(self, subject: str) -> list[tuple[str, ...]]:
        return {"source": self.sources}[subject]

    def search(self, query: np.ndarray, top_k: int, flt: MemoryFilter) -> list[tuple[str, float]]:
        """``(memory_id, cosine)`` of the ``top_k`` best rows meeting ``flt``, best first."""
        return self.search_many(query, [(top_k, flt)])[0]

    def search_many(self, query: np.ndarray, searches: list[tuple[int, MemoryFilter]]) -> list[list[tuple[str, float]]]:
        """:meth:`search` for each ``(top_k, filter)`` of ``searches`` with one query: a row's cosine is computed once
        for them all (a query naming a time searches its scope, then what was said and what happens then: the
        narrower two pick their rows' scores from the first's instead of gathering those rows' vectors again)."""
        n = self.n
        every: np.ndarray | None = None  # the query's cosine with every row, once a search needed it
        found: list[list[tuple[str, float]]] = []
        for top_k, flt in searches:
            rows = np.flatnonzero(self.mask(flt)) if n else np.zeros(0, dtype=np.int64)
            if len(rows) == 0:
                found.append([])
                continue
            # vecdot, not `@`: `@` hands a matrix-vector product to the BLAS thread pool, whose spinning threads
            # then fight the embedding model's own threads for the cores (measured on 2 cores: the next query
            # embedding took twice as long). vecdot takes one BLAS dot per row on this thread: twice as fast as the
            # einsum it replaced (10k rows 0.56 -> 0.24-0.43 ms, 100k 10.9 -> 5.9 ms), and each row's cosine is the
            # same bits as np.dot(vector, query) gives elsewhere (recall_fuse_op's cosines), whether or not the row
            # set is narrowed, and whichever search computed it.
            if every is not None:
                scores = every[rows]
            elif len(rows) * 4 < n:  # a narrow filter: score only the rows it keeps
                scores = np.vecdot(self.vectors[rows], query)
            else:
                every = np.vecdot(self.vectors[:n], query)
                scores = every[rows]
            best = _best(scores, min(top_k, len(rows)))
            # tolist(): plain ints and floats at once (a float32's float is the same number either way)
            found.append(list(zip(map(self.ids.__getitem__, rows[best].tolist()), scores[best].tolist(), strict=True)))
        return found

    def search_each(self, queries: np.ndarray, top_k: int, flt: MemoryFilter) -> list[list[tuple[str, float]]]:
        """:meth:`search` for each row of ``queries`` (unit vectors) with one ``top_k`` and filter: one mask (and, for
        a narrow filter, one gather of its rows) for them all, and the scores of several queries as one matrix
        product on this thread (:func:`flowmem.core.blas.one_thread`: OpenBLAS's own pool would spin on the cores the
        embedding model needs next). A product sums in another order than :meth:`search`'s dot per row: its scores
        are :meth:`search`'s within float32 rounding (~1e-6), not the same bits (an ingest's 50 queries over 10k
        memories: 6 ms instead of 19)."""
        rows = np.flatnonzero(self.mask(flt)) if self.n else np.zeros(0, dtype=np.int64)
        if len(rows) == 0:
            return [[] for _ in queries]
        k = min(top_k, len(rows))
        narrow = len(rows) * 4 < self.n
        vectors = self.vectors[rows] if narrow else self.vectors[: self.n]
        if len(queries) > 1 and blas.available():
            # rows × queries, then turned: BLAS reads the stored rows in their own order (10k × 28: 3.6 ms, not the
            # 5.3 of queries × rows.T)
            with blas.one_thread():
                product = np.ascontiguousarray((vectors @ np.asarray(queries, dtype=np.float32).T).T)
            every = product if narrow else product[:, rows]
        else:
            every = np.stack([np.vecdot(vectors, q) if narrow else np.vecdot(vectors, q)[rows] for q in queries])
        found: list[list[tuple[str, float]]] = []
        for scores in every:
            best = _best(scores, k)
            found.append(list(zip(map(self.ids.__getitem__, rows[best].tolist()), scores[best].tolist(), strict=True)))
        return found

    def keeper(self, flt: MemoryFilter) -> Callable[[str], bool]:
        """A test of whether a memory id is a live row meeting ``flt`` (one mask, then a lookup per id)."""
        keep = self.mask(flt)
        return lambda memory_id: (at := self.row_of.get(memory_id)) is not None and bool(keep[at])

    def matching_ids(self, flt: MemoryFilter) -> list[str]:
        """Ids of rows meeting ``flt``, ordered by (created_at, memory_id)."""
        order, _ = self._sorted()
        return [self.ids[i] for i in order[self.mask(flt)[order]]]

    def count(self, flt: MemoryFilter) -> int:
        return len(self) if flt.is_empty else int(self.mask(flt).sum())

    def adjacent(
        self, created: int, memory_id: str, flt: MemoryFilter, before: int, after: int
    ) -> tuple[list[str], list[str]]:
        """Ids of the ``before`` rows meeting ``flt`` just before ``(created, memory_id)`` and the ``after`` just
        after, in the order of :meth:`matching_ids`, nearest first on each side; ``memory_id`` is on neither.

        Binary searches in the kept order and one mask, then each side walked outwards from the place in growing
        chunks (:meth:`_around`), only as far as the rows it returns: a read around a place costs what it finds, not
        its window (a bulk load puts thousands of memories in the window of each).
        """
        earlier, later = self._around(created, memory_id, flt, before, after)
        return self._ids_but(earlier, memory_id, before), self._ids_but(later, memory_id, after)

    def adjacent_turns(
        self, created: int, memory_id: str, own: tuple[str, ...], flt: MemoryFilter, before: int, after: int
    ) -> tuple[list[list[str]], list[list[str]]]:
        """:meth:`adjacent` counted in turns (:class:`~flowmem.vector_store.turns.TurnRuns`: rows sharing a source
        with ``own`` are the place's own turn, read past): the ids of the ``before`` turns just before the place and
        the ``after`` just after, nearest first, each turn's ids nearest first. Each side's rows are looked at one by
        one only up to the first row of the turn after the last wanted."""
        earlier, later = self._around(created, memory_id, flt, before, after)
        return self._turns(earlier, memory_id, own, before), self._turns(later, memory_id, own, after)

    def _around(
        self, created: int, memory_id: str, flt: MemoryFilter, before: int, after: int
    ) -> tuple[Iterator[int], Iterator[int]]:
        """The rows meeting ``flt`` before ``(created, memory_id)`` in the kept order, nearest first (none when
        ``before`` is 0), and those after it: each side produced as it is consumed. The filter's created bounds are
        a slice of the kept order (binary searches), the rest one mask by row."""
        order, order_created = self._sorted()
        low, high = self._created_window(order_created, flt)
        keep = self.mask(flt, leave_out=CREATED_BOUNDS)
        start = int(np.searchsorted(order_created, created, side="left"))
        end = int(np.searchsorted(order_created, created, side="right"))
        # Within the second, rows are ordered by id: the place of memory_id among them (then within the window).
        place = start + bisect.bisect_left(range(start, end), memory_id, key=lambda j: self.ids[order[j]])
        place = min(max(place, low), high)
        earlier = _walk(order, keep, place, low, -1) if before > 0 else iter(())
        later = _walk(order, keep, place, high, 1) if after > 0 else iter(())
        return earlier, later

    def _turns(self, rows: Iterator[int], memory_id: str, own: tuple[str, ...], limit: int) -> list[list[str]]:
        runs: TurnRuns[str] = TurnRuns(own, limit)  # (not TurnRuns[str](...): typing's call costs more than a read)
        for row in rows:
            found = self.ids[row]
            if found != memory_id and not runs.add(found, found, self.sources[row]):
                break
        return runs.turns

    @staticmethod
    def _created_window(order_created: np.ndarray, flt: MemoryFilter) -> tuple[int, int]:
        """The positions ``[low, high)`` of the kept order whose created time meets ``flt``'s created bounds
        (``created_after`` ≤ created < ``created_before``; an unknown time meets neither)."""
        if flt.created_after is None and flt.created_before is None:
            return 0, len(order_created)
        low = int(np.searchsorted(order_created, NO_TIME, side="right"))  # unknown times sort first: never in
        high = len(order_created)
        if flt.created_after is not None:
            low = max(low, int(np.searchsorted(order_created, created_epoch(flt.created_after), side="left")))
        if flt.created_before is not None:
            high = int(np.searchsorted(order_created, created_epoch(flt.created_before), side="left"))
        return low, max(low, high)

    def _ids_but(self, rows: Iterator[int], memory_id: str, limit: int) -> list[str]:
        found = [self.ids[row] for row in itertools.islice(rows, limit + 1)]
        return [i for i in found if i != memory_id][:limit]

    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        """Row positions ordered by (created, id), and the created column in that order (rebuilt when stale)."""
        if self._order is None or self._order_created is None:
            order = np.lexsort((np.array(self.ids[: self.n], dtype=str), self.created[: self.n])) if self.n else None
            self._order = np.zeros(0, dtype=np.int64) if order is None else order.astype(np.int64)
            self._order_created = self.created[self._order]
        return self._order, self._order_created

    def _ordered_insert(self, at: int) -> None:
        """Put new row ``at`` in its place in the kept order (when there is one to keep current)."""
        if self._order is None or self._order_created is None:
            return
        created, memory_id = self.created[at], self.ids[at]
        start = int(np.searchsorted(self._order_created, created, side="left"))
        end = int(np.searchsorted(self._order_created, created, side="right"))
        order = self._order
        place = start + bisect.bisect_left(range(start, end), memory_id, key=lambda j: self.ids[order[j]])
        self._order = np.insert(self._order, place, at)
        self._order_created = np.insert(self._order_created, place, created)

    # -- internals -----------------------------------------------------------------------------
    def _post(self, at: int, keywords: dict[str, tuple[str, ...]]) -> None:
        """Row ``at`` now holds ``keywords`` (of the POSTED subjects): its old ones leave the postings."""
        for subject, old in self.keywords[at].items():
            for keyword in old:
                rows = self._postings[subject][keyword]
                rows.discard(at)
                if not rows:
                    del self._postings[subject][keyword]
        for subject, new in keywords.items():
            for keyword in new:
                self._postings[subject].setdefault(keyword, set()).add(at)
        self.keywords[at] = keywords

    def _target_code(self, target: str) -> int:
        code = self._target_codes.get(target)
        if code is None:
            code = self._target_codes[target] = len(self._target_codes)
        return code

    def _reserve(self, size: int) -> None:
        capacity = len(self.alive)
        if size <= capacity:
            return
        capacity = max(size, capacity * 2, 256)
        self.vectors = _grow(self.vectors, capacity)
        self.alive = _grow(self.alive, capacity)
        self.target = _grow(self.target, capacity)
        self.memory_type = _grow(self.memory_type, capacity)
        self.status = _grow(self.status, capacity)
        self.parts = _grow(self.parts, capacity)
        self.created = _grow(self.created, capacity)
        self.times = _grow(self.times, capacity)

    def _compact(self) -> None:
        self._coded_masks.clear()
        rows = np.flatnonzero(self.alive[: self.n])
        self.vectors = self.vectors[rows].copy()
        self.alive = self.alive[rows].copy()
        self.target = self.target[rows].copy()
        self.memory_type = self.memory_type[rows].copy()
        self.status = self.status[rows].copy()
        self.parts = self.parts[rows].copy()
        self.created = self.created[rows].copy()
        self.times = self.times[rows].copy()
        self.ids = [self.ids[i] for i in rows]
        self.sources = [self.sources[i] for i in rows]
        self.keywords = [self.keywords[i] for i in rows]
        self._postings = {subject: {} for subject in POSTED}
        for at, keywords in enumerate(self.keywords):
            for subject, held in keywords.items():
                for keyword in held:
                    self._postings[subject].setdefault(keyword, set()).add(at)
        self.row_of = {memory_id: i for i, memory_id in enumerate(self.ids)}
        self.n = len(rows)
        self.dead = 0
        self._order = None


def _best(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` best ``scores``, best first: those of ``np.argpartition`` then a stable sort by score.

    On a large array the best are first found above a threshold, the ``k // 2 + 1``-th best of every eighth score
    (some ``4k`` scores pass it; one pass over the array instead of a selection over it: 10k scores ~17 µs, not
    ~100). When two of the ``k + 1`` best are equal, which of them ``np.argpartition`` puts first is its own
    affair: those are left to it, as is an array whose threshold lets too few through."""
    if k >= len(scores):
        return np.argsort(-scores, kind="stable")
    if len(scores) >= SAMPLED_TOP * k:
        sample = scores[::8]
        at = len(sample) - (k // 2 + 1)
        passed = np.flatnonzero(scores >= np.partition(sample, at)[at])
        if len(passed) > k:
            order = np.argsort(-scores[passed])[: k + 1]
            top = scores[passed[order]]
            if not np.any(top[1:] == top[:-1]):
                return passed[order[:k]]
    best = np.argpartition(-scores, k - 1)[:k]
    return best[np.argsort(-scores[best], kind="stable")]


def _walk(order: np.ndarray, keep: np.ndarray, place: int, stop: int, step: int) -> Iterator[int]:
    """The rows of ``order`` that ``keep`` holds, from position ``place`` (``step`` 1: on to ``stop``; -1: back from
    just before it, down to ``stop``), in chunks that double: only as many rows are masked as the caller reads."""
    chunk = 16
    while (place < stop) if step > 0 else (place > stop):
        rows = order[place : min(place + chunk, stop)] if step > 0 else order[max(place - chunk, stop) : place][::-1]
        place += step * len(rows)
        chunk *= 2
        yield from rows[keep[rows]].tolist()


def _grow(array: np.ndarray, capacity: int) -> np.ndarray:
    grown = np.zeros((capacity, *array.shape[1:]), dtype=array.dtype)
    grown[: len(array)] = array
    return grown
