"""A query's time expressions, found once per flow run: ``set_query_op`` writes them (``query_times``) and the
ops that leave time words out of word matching or recall by the time named (``retrieve_memory_op``,
``lexical_recall_op``, ``semantic_rank_op``) read them instead of running the rules again, each."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flowmem.timeexpr.extract import extract_all
from flowmem.timeexpr.model import ExtractedTime

QUERY_TIMES = "query_times"


@dataclass(frozen=True)
class QueryTimes:
    """What :func:`~flowmem.timeexpr.extract_all` finds in ``text`` said at ``now`` (the offline rules)."""

    text: str
    now: datetime
    found: tuple[ExtractedTime, ...]

    @classmethod
    def of(cls, text: str, now: datetime) -> QueryTimes:
        return cls(text, now, tuple(extract_all(text, now)))


def times_in(text: str, now: datetime, known: QueryTimes | None) -> list[ExtractedTime]:
    """``extract_all(text, now)``: ``known``'s when they were found in the same text at the same time."""
    if known is not None and known.text == text and known.now == now:
        return list(known.found)
    return extract_all(text, now)
