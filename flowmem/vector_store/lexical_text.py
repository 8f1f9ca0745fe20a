"""What every store indexes for lexical (BM25) search, and BM25 itself for the stores that compute it in-process.

One function says what of a memory is searchable by words (:func:`lexical_document`); every
store indexes exactly its text, pre-tokenised by :func:`flowmem.scoring.tokens.index_text`, so
all stores see the same terms.

Scores are Okapi BM25 in Lucene's form (:func:`bm25`), with ``k1 = 1.2`` and ``b = 0.75`` — the
defaults of Lucene (Elasticsearch) and SQLite FTS5, the values Robertson and Zaragoza recommend
as a general default. The ``memory`` and ``local`` stores compute it with :class:`BM25Index`
over the workspace's own statistics (count, average length, document frequency): a tenant's
words are rare or common by its own memories, and no other tenant's writes move its scores.
(The local store keeps FTS5's ``bm25()`` out: its idf, ``log((N - n + 0.5) / (n + 0.5))``, is
clamped to ~0 for any term in half the documents or more, so in a store of a few dozen memories
many searches would score everything alike; and over thousands of matches it costs more than
the numpy index.) Elasticsearch computes the same formula over its index (one shard), with
document lengths stored to one byte's precision: the same ranking where statistics agree (the
conformance suite checks a corpus whose order holds whatever else an index holds), scores that
differ. Scores are a ranking signal within one search, not comparable across searches.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable

import numpy as np

from flowmem.schema.memory import Memory
from flowmem.scoring.tokens import index_text

K1 = 1.2
B = 0.75
LEXICAL = "lexical"  # the score name lexical search returns: scores["lexical"] = BM25 score
# The attribute of a memory holding its expanded key (extracted facts, names, dates in words),
# indexed beside its content when a memory has one; written by the write path (issue 14, point 3).
EXPANDED_KEY_ATTRIBUTE = "expanded_key"


def lexical_document(memory: Memory) -> str:
    """The text of ``memory`` that lexical search finds it by: content, keywords, and the expanded key if any.

    ``when_to_use`` is left out: it says when a memory helps ("when planning trips"), not what it
    holds, and would make every insight match every question about its situation.
    """
    parts = [memory.content, *memory.keywords]
    expanded = getattr(memory, EXPANDED_KEY_ATTRIBUTE, None)
    if isinstance(expanded, str) and expanded:
        parts.append(expanded)
    return index_text(" ".join(parts))


def idf(df: int, count: int) -> float:
    """Lucene's BM25 idf of a term in ``df`` of ``count`` documents: positive however common the term."""
    return math.log(1.0 + (count - df + 0.5) / (df + 0.5))


def bm25(tf: int, length: int, average: float, term_idf: float) -> float:
    """One term's BM25 in a document of ``length`` terms (Lucene's form: without the constant ``k1 + 1``)."""
    return term_idf * tf / (tf + K1 * (1.0 - B + B * length / (average or 1.0)))


class BM25Index:
    """Okapi BM25 (:func:`bm25`) over one workspace's memories, with numpy (the ``memory`` and ``local`` stores').

    Postings are term → {slot: term count}; a search turns the postings of the query's terms into
    arrays and adds their weights, so a term in thousands of memories costs a few array operations,
    not a Python loop per memory. Statistics (count, average length, document frequency) are the
    workspace's own.
    """

    def __init__(self) -> None:
        self._slots: dict[str, int] = {}
        self._ids: list[str] = []
        self._lengths = np.zeros(0, dtype=np.float64)
        self._terms: dict[int, Counter[str]] = {}
        self._postings: dict[str, dict[int, int]] = {}
        self._free: list[int] = []
        self._total_length = 0
        # A term's posting as arrays (slots, term counts), made when a search first reads it and dropped when the
        # posting changes: a search reads the arrays, not the dict (turning ~800 entries into arrays was ~30 µs).
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self._slots)

    def put(self, memory_id: str, text: str) -> None:
        """Index (or re-index) ``memory_id`` with the pre-tokenised ``text`` (terms separated by spaces). The same
        terms again (a memory rewritten for its status or sources) leave the index as it is."""
        terms = Counter(text.split())
        if (same := self._slots.get(memory_id)) is not None and self._terms[same] == terms:
            return
        self.remove(memory_id)
        slot = self._free.pop() if self._free else len(self._ids)
        if slot == len(self._ids):
            self._ids.append(memory_id)
            if slot >= len(self._lengths):
                self._lengths = np.concatenate([self._lengths, np.zeros(max(256, len(self._lengths)))])
        else:
            self._ids[slot] = memory_id
        self._slots[memory_id] = slot
        self._terms[slot] = terms
        length = sum(terms.values())
        self._lengths[slot] = length
        self._total_length += length
        for term, count in terms.items():
            self._postings.setdefault(term, {})[slot] = count
            self._arrays.pop(term, None)

    def put_many(self, documents: Iterable[tuple[str, str]]) -> None:
        """:meth:`put` of each ``(memory_id, text)``. Into an empty index (a store's index loaded from its file) each
        memory goes straight to the next slot, where :meth:`put` would place it (a memory given twice keeps its first
        place and its last text, as there): nothing to compare, remove or forget (10k texts ~2x faster)."""
        if self._slots or self._free:
            for memory_id, text in documents:
                self.put(memory_id, text)
            return
        postings, lengths = self._postings, []
        for slot, (memory_id, text) in enumerate(dict(documents).items()):
            self._ids.append(memory_id)
            self._slots[memory_id] = slot
            terms = self._terms[slot] = Counter(text.split())
            lengths.append(sum(terms.values()))
            for term, count in terms.items():
                postings.setdefault(term, {})[slot] = count
        self._lengths = np.zeros(max(len(lengths), 256), dtype=np.float64)
        self._lengths[: len(lengths)] = lengths
        self._total_length = int(sum(lengths))
        self._arrays.clear()

    def remove(self, memory_id: str) -> None:
        slot = self._slots.pop(memory_id, None)
        if slot is None:
            return
        self._total_length -= int(self._lengths[slot])
        self._lengths[slot] = 0
        for term in self._terms.pop(slot):
            self._arrays.pop(term, None)
            posting = self._postings[term]
            del posting[slot]
            if not posting:
                del self._postings[term]
        self._free.append(slot)

    def top(
        self, terms: Iterable[str], top_k: int, keep: Callable[[str], bool] | None = None
    ) -> list[tuple[str, float]]:
        """``(memory_id, BM25)`` of the ``top_k`` best memories containing any of ``terms`` that ``keep``
        accepts, best first, equal scores by memory id."""
        count = len(self._slots)
        if not count or top_k <= 0:
            return []
        average = self._total_length / count or 1.0
        scores = np.zeros(len(self._ids), dtype=np.float64)
        found: list[np.ndarray] = []
        for term in dict.fromkeys(terms):
            arrays = self._posting_arrays(term)
            if arrays is None:
                continue
            slots, tf = arrays
            # bm25() over arrays: the same expression, so every store computes the same floats
            scores[slots] += idf(len(slots), count) * tf / (tf + K1 * (1.0 - B + B * self._lengths[slots] / average))
            found.append(slots)
        # The memories holding a term, those of a non-zero score (each distinct: one term's, or the union's, marked
        # in an array rather than sorted), without a pass over the whole workspace's texts. One term's come by memory
        # id, and a stable sort by score keeps that order among equal scores: its runs below need no sort of their own.
        by_id = len(found) == 1
        if by_id:
            hits = found[0]
        elif found:
            present = np.zeros(len(self._ids), dtype=bool)
            for slots in found:
                present[slots] = True
            hits = np.flatnonzero(present)
        else:
            hits = np.zeros(0, np.int64)
        hits = hits[scores[hits] != 0]
        # Only the best few are ordered (a common word's memories run to the tens of thousands at 100k, and sorting
        # them all was most of a search): every hit scoring at least the depth-th best, ties included, which is the
        # answer whenever ``keep`` accepts k of them; else the next band below it, 16x deeper, down to all of them (a
        # user's few memories among a workspace's many). A band holds every hit of each score it reaches, so the
        # bands in turn are the plain ranking, and ``keep`` is asked about each memory once at most.
        values = scores[hits]
        picked: list[tuple[str, float]] = []
        upper, depth = np.inf, max(4 * top_k, 64)
        while True:
            if depth >= len(hits):
                self._pick(hits[values < upper], scores, by_id, top_k, keep, picked)
                return picked
            at = len(values) - depth
            lower = np.partition(values, at)[at]
            self._pick(hits[(values >= lower) & (values < upper)], scores, by_id, top_k, keep, picked)
            if len(picked) == top_k:
                return picked
            upper, depth = lower, depth * 16

    def _pick(
        self,
        hits: np.ndarray,
        scores: np.ndarray,
        by_id: bool,
        top_k: int,
        keep: Callable[[str], bool] | None,
        picked: list[tuple[str, float]],
    ) -> None:
        """Add to ``picked`` the best of ``hits`` that ``keep`` accepts, until it holds ``top_k``."""
        order = hits[np.argsort(-scores[hits], kind="stable" if by_id else None)]
        ranked = -scores[order]  # ascending
        start = 0
        # Memories of equal score a run at a time, each run by id, until k are kept: ``keep`` is asked only about
        # the ids that can still make the answer. (Asking it about every memory tied with the k-th, and sorting
        # them all, was most of a search at 100k memories: short texts tie by the thousand.)
        while start < len(order) and len(picked) < top_k:
            end = int(np.searchsorted(ranked, ranked[start], side="right"))
            score = float(-ranked[start])
            run = map(self._ids.__getitem__, order[start:end].tolist())  # plain ints: C speed
            for memory_id in run if by_id else sorted(run):
                if keep is None or keep(memory_id):
                    picked.append((memory_id, score))
                    if len(picked) == top_k:
                        break
            start = end

    def _posting_arrays(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The slots holding ``term`` and its count in each, by the id of the memory in each (None: no memory holds
        it)."""
        arrays = self._arrays.get(term)
        if arrays is None:
            posting = self._postings.get(term)
            if not posting:
                return None
            slots = np.fromiter(posting.keys(), dtype=np.int64, count=len(posting))
            tf = np.fromiter(posting.values(), dtype=np.float64, count=len(posting))
            ids = [self._ids[slot] for slot in slots.tolist()]
            by_id = np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)
            arrays = self._arrays[term] = (slots[by_id], tf[by_id])
        return arrays


def query_text(terms: Iterable[str]) -> str:
    """Terms as one space-separated string (the form Elasticsearch's ``match`` query takes)."""
    return " ".join(terms)
