"""What every store indexes for lexical (BM25) search, and BM25 itself for stores that compute it in Python.

One function says what of a memory is searchable by words (:func:`lexical_document`); every
store indexes exactly its text, pre-tokenised by :func:`flowmem.scoring.tokens.index_text`, so
all stores see the same terms.

Scores are Okapi BM25 in Lucene's form (:func:`bm25`), with ``k1 = 1.2`` and ``b = 0.75`` — the
defaults of Lucene (Elasticsearch) and SQLite FTS5, the values Robertson and Zaragoza recommend
as a general default — and collection statistics (document count, average length, document
frequency) over the whole store, as an Elasticsearch index (one shard) keeps them. The ``memory``
and ``local`` stores compute exactly this formula (the local store reads term and document
statistics from its FTS5 index rather than calling FTS5's ``bm25()``: that one's idf,
``log((N - n + 0.5) / (n + 0.5))``, is clamped to ~0 for any term in half the documents or more,
so in a store of a few dozen memories many searches would score everything alike);
Elasticsearch computes the same formula with document lengths stored to one byte's precision.
Scores are a ranking signal within one search, not comparable across searches.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable

from flowmem.schema.memory import Memory
from flowmem.scoring.tokens import index_text

K1 = 1.2
B = 0.75
LEXICAL = "lexical"  # the score name lexical search returns: scores["lexical"] = BM25 score
Key = tuple[str, str]  # (workspace id, memory id)
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
    """Okapi BM25 (:func:`bm25`) over documents keyed by (workspace, memory id), in Python (the ``memory`` store's)."""

    def __init__(self) -> None:
        self._terms: dict[Key, Counter[str]] = {}
        self._lengths: dict[Key, int] = {}
        self._postings: dict[str, dict[Key, int]] = {}
        self._total_length = 0

    def put(self, key: Key, text: str) -> None:
        """Index (or re-index) ``key`` with the pre-tokenised ``text`` (terms separated by spaces)."""
        self.remove(key)
        terms = Counter(text.split())
        self._terms[key] = terms
        self._lengths[key] = sum(terms.values())
        self._total_length += self._lengths[key]
        for term, count in terms.items():
            self._postings.setdefault(term, {})[key] = count

    def remove(self, key: Key) -> None:
        terms = self._terms.pop(key, None)
        if terms is None:
            return
        self._total_length -= self._lengths.pop(key)
        for term in terms:
            posting = self._postings[term]
            del posting[key]
            if not posting:
                del self._postings[term]

    def scores(self, terms: Iterable[str], keep: Callable[[Key], bool] | None = None) -> dict[Key, float]:
        """BM25 of every document containing any of ``terms`` (distinct), optionally only keys ``keep`` accepts."""
        count = len(self._terms)
        if not count:
            return {}
        average = self._total_length / count
        found: dict[Key, float] = {}
        for term in dict.fromkeys(terms):
            posting = self._postings.get(term)
            if not posting:
                continue
            term_idf = idf(len(posting), count)
            for key, tf in posting.items():
                if keep is None or keep(key):
                    found[key] = found.get(key, 0.0) + bm25(tf, self._lengths[key], average, term_idf)
        return found


def query_text(terms: Iterable[str]) -> str:
    """Terms as one space-separated string (the form Elasticsearch's ``match`` query takes)."""
    return " ".join(terms)
