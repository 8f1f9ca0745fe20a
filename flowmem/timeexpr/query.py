"""A query's time expressions and its recency operator, found once per flow run: ``set_query_op`` writes them
(``query_times``, :data:`flowmem.keys.QUERY_TIMES`) and the ops that leave time words out of word matching,
recall by the time named or order by when (``retrieve_memory_op``, ``lexical_recall_op``, ``semantic_rank_op``,
``fuse_rerank_op``) read them instead of running the rules again, each."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flowmem.timeexpr.asks import asks_when
from flowmem.timeexpr.extract import extract_all
from flowmem.timeexpr.model import ExtractedTime
from flowmem.timeexpr.recency import RecencyAsk, recency_ask


@dataclass(frozen=True)
class QueryTimes:
    """What :func:`~flowmem.timeexpr.extract_all` finds in ``text`` said at ``now`` (the offline rules), and
    whether it asks for the latest or the earliest occurrence (:func:`~flowmem.timeexpr.recency.recency_ask`)."""

    text: str
    now: datetime
    found: tuple[ExtractedTime, ...]
    recency: RecencyAsk | None = None
    asks_when: bool = False  # it asks for the time of something (:mod:`flowmem.timeexpr.asks`)

    @classmethod
    def of(cls, text: str, now: datetime) -> QueryTimes:
        found = tuple(extract_all(text, now))
        return cls(text, now, found, recency_ask(text, [t.expression for t in found]), asks_when(text))


def times_in(text: str, now: datetime, known: QueryTimes | None) -> list[ExtractedTime]:
    """``extract_all(text, now)``: ``known``'s when they were found in the same text at the same time."""
    if known is not None and known.text == text and known.now == now:
        return list(known.found)
    return extract_all(text, now)


def recency_in(text: str, now: datetime, known: QueryTimes | None) -> RecencyAsk | None:
    """``text``'s recency operator: ``known``'s when it was read from the same text at the same time."""
    if known is not None and known.text == text and known.now == now:
        return known.recency
    return recency_ask(text, [t.expression for t in extract_all(text, now)])


def words_to_match(text: str, now: datetime, known: QueryTimes | None) -> str:
    """``text`` as word matching reads it: without its recency operator and its time expressions ("when did I last
    go hiking last summer?" → "when did I go hiking ?"). Matching the time is the time boost's job and ordering
    by when the recency order's; their words ("last") would only find memories that say them ("my last day")."""
    recency = recency_in(text, now, known)
    matched = text if recency is None else recency.without_words(text)
    for found in times_in(text, now, known):
        matched = matched.replace(found.expression, " ")
    return matched
