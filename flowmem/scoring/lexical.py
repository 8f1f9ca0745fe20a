"""A cheap lexical relevance score: how much of the query's (rarer) words a memory contains.

Words are lower-cased ``\\w+`` runs minus the stop list of :mod:`flowmem.scoring.tokens`; Chinese, Japanese and Korean
text counts each character. Rarer words weigh more: ``idf = log(1 + N / (1 + df))`` over the
candidates being scored. The score is the idf-weighted share of the query's words found, 0–1.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

from flowmem.scoring.tokens import STOP_WORDS

_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]|[^\W_]+", re.UNICODE)
# What _WORD finds in lower-cased ASCII text (no CJK there, and [^\W_] is a letter or digit), ~1.6x faster.
_ASCII_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> set[str]:
    """The content words of ``text`` (lower-cased, stop words removed, a CJK character per word)."""
    return {w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and (len(w) > 1 or not w.isascii())}


@lru_cache(maxsize=4096)
def _document_words(document: str) -> frozenset[str]:
    """Every word of ``document`` (lower-cased; stop words too): remembered, since the ranker scores the same
    memories query after query (~50 documents a query)."""
    lowered = document.lower()
    return frozenset(_ASCII_WORD.findall(lowered) if lowered.isascii() else _WORD.findall(lowered))


def lexical_scores(query: str, documents: Sequence[str]) -> list[float]:
    """For each document, the idf-weighted share of the query's content words it contains."""
    wanted = words(query)
    if not wanted or not documents:
        return [0.0] * len(documents)
    # Only the query's words of each document matter (the rest could not be counted), so only they are kept:
    # no stop-word lookup per document word (the ranker scores every candidate this way, per query).
    bags = [wanted & _document_words(d) for d in documents]
    count = len(documents)
    idf = {w: math.log(1 + count / (1 + sum(1 for bag in bags if w in bag))) for w in wanted}
    total = sum(idf.values())
    return [sum(idf[w] for w in wanted if w in bag) / total for bag in bags]
