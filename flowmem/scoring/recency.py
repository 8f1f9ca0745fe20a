"""The recency order: "when did I last go hiking?" asks for the latest of the memories about hiking, not the one
most like the question (:mod:`flowmem.timeexpr.recency` reads the ask from the query).

Which memories are about the asked activity is a rule on the scores, not a count: those whose final score is
within ``margin`` standard deviations (σ, the population spread of this query's final scores, at least the caller's
least spread) of the best. σ is measured on the scores as they are, for this query, so the rule holds on any base (a
cosine band, a fused score) — a clear relevance lead keeps a memory apart from the rest; near-ties on the topic are
ordered by when. The least spread is for the query with two or three candidates, whose σ says nothing: 0.582 and 0.577
for "when did I last go swimming?" are a tie, not a lead.
Those are put first, ordered by when (the event's time, else when it was said): latest first for "last",
earliest first for "first"; the rest follow in score order.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from flowmem.schema.memory import Memory
from flowmem.scoring.aspect import tells_state
from flowmem.scoring.change import read_changes, subject_terms
from flowmem.scoring.values import differ, find_values
from flowmem.timeexpr.recency import RecencyAsk

RECENCY_RANK = "recency_rank"
CHANGED_FIRST = "changed_first"
RESTATED_FIRST = "restated_first"
# The terms of a query's "now" (现在 and its pairs 我现, 妈现; "these days"): when it asks, not what
_NOW_WORD = re.compile(r"[现目如今近]|^(?:now|day|today|current|currently|nowaday|nowadays)$")


def when_of(memory: Memory) -> float:
    """When ``memory``'s event happened, else when it was said (else when it was stored), as a timestamp."""
    when = memory.event_time or memory.message_time or memory.created_at
    return when.timestamp()


def said_at(memory: Memory) -> float:
    """When ``memory`` was said (else stored), as a timestamp: the order in which statements supersede each other."""
    return (memory.message_time or memory.created_at).timestamp()


def order_by_recency(
    ranked: list[Memory], finals: list[float], ask: RecencyAsk, band: float, label: str
) -> tuple[list[Memory], dict[str, Any]]:
    """``ranked`` (best first, ``finals`` their scores) with those within ``band`` of the best ordered by when
    (the caller's margin·σ).

    Each memory moved into that order gets ``scores["recency_rank"]`` (1 = first) and ``explain["recency_rank"]``
    saying what it was ordered by. Returns the new order and a note for the trace: the operator's words, the
    order, the floor and how many memories it ordered.
    """
    if not ranked:
        return ranked, {"words": ask.words, "order": ask.order, "ordered": 0}
    floor = finals[0] - band
    within = [memory for memory, final in zip(ranked, finals, strict=True) if final >= floor]
    rest = ranked[len(within) :]
    within.sort(key=when_of, reverse=ask.order == "latest")
    which = "latest" if ask.order == "latest" else "earliest"
    for i, memory in enumerate(within, 1):
        memory.set_score(RECENCY_RANK, float(i), label)
        basis = "event" if memory.event_time is not None else "said"
        memory.explain[RECENCY_RANK] = (
            f"{which} first by {basis} time, of {len(within)} within {band:.3f} of the best: {ask.words!r}"
        )
    note = {"words": ask.words, "order": ask.order, "band": round(band, 4), "floor": round(floor, 4)}
    note["ordered"] = len(within)
    return within + rest, note


def changed_first(ranked: list[Memory], margin: float, label: str, *, among: int = 10) -> list[Memory]:
    """``ranked`` (best first) with each memory of the first ``among`` that states a change about what a better-ranked,
    older memory speaks of moved just above it, when its final score is within ``margin`` of that one's: "Leah left
    teaching!! She's a sales rep now" goes above "She teaches chemistry at Westbrook High" for "what does my sister
    do?" even when the write path did not expire the older one. A change is read by
    :func:`flowmem.scoring.change.read_changes` (an ending, a new value, a correction: closed classes of words, not
    phrasings), and what it is about must be a term of the older memory; each move is said in ``explain``."""

    common = common_terms(ranked[:among])

    def changed(newer: Memory, older: Memory) -> str | None:
        about = frozenset().union(*(change.about for change in read_changes(newer.content)))
        shared = (about & subject_terms(older.content)) - common if about else frozenset()
        return f"states a change about {', '.join(sorted(shared))}" if shared else None

    return _newer_above(ranked, margin, label, among, CHANGED_FIRST, changed)


# The least number of memories whose terms say which are common: of two or three, a term in most says nothing.
COMMON_AMONG = 4


def common_terms(memories: list[Memory]) -> frozenset[str]:
    """The terms in more than half of ``memories`` (at least :data:`COMMON_AMONG` of them): what most of a query's
    candidates speak of is not what one of them changed. In memories written of the user ("Alice moved her dentist
    appointment…", "Alice hurt her knee…") the user's name is such a term, as "I" is in the user's own words; a
    change of the dentist appointment is not a change of the knee."""
    if len(memories) < COMMON_AMONG:
        return frozenset()
    counts = Counter(term for memory in memories for term in subject_terms(memory.content))
    return frozenset(term for term, count in counts.items() if count * 2 > len(memories))


def restated_first(ranked: list[Memory], query: str, margin: float, label: str, *, among: int = 10) -> list[Memory]:
    """For a query about how things are now: ``ranked`` with each memory of the first ``among`` that says what a
    better-ranked, older memory says of the query's subject with another value moved just above it, within ``margin``.

    "how much do I earn an hour?" finds "£7.55 an hour, not bad" and, said months later, "£8.60 an hour now": both
    hold an amount and a word of the question, with other contents — the same attribute restated, so the later is what
    holds now, whether or not its words say it changed. The values are typed (:mod:`flowmem.scoring.values`: an
    amount, a name, a date, a weekday …) and the subject is the query's own words, so no list of attributes is
    involved; each move is said in ``explain``."""
    # the query's words of what is asked about: not a name ("who is Grace?" asks of no attribute of hers)
    names = frozenset(t for v in find_values(query) if v.kind == "name" for t in subject_terms(v.norm))
    asked = frozenset(t for t in subject_terms(query) - names if not _NOW_WORD.search(t))

    states: dict[str, bool] = {}  # whether each later memory tells how things are, read once

    def restated(newer: Memory, older: Memory) -> str | None:
        shared = asked & subject_terms(newer.content) & subject_terms(older.content)  # (read once a text: cached)
        if not shared:
            return None
        # the later tells how things are (not "ran 6 km with no knee pain": an event), with another value
        state = states.get(newer.memory_id)
        if state is None:
            state = states[newer.memory_id] = tells_state(newer.content)
        if not state or not differ(older.content, newer.content):
            return None
        return f"says what it says of {', '.join(sorted(shared))} with another value"

    if not asked:
        return ranked
    return _newer_above(ranked, margin, label, among, RESTATED_FIRST, restated)


def _newer_above(
    ranked: list[Memory],
    margin: float,
    label: str,
    among: int,
    score: str,
    reason_of: Callable[[Memory, Memory], str | None],
) -> list[Memory]:
    """``ranked`` with each memory of the first ``among`` moved just above the first better-ranked memory said before it
    that it has a reason to go above (``reason_of(newer, older)``), when its final score is within ``margin`` of that
    one's."""
    order = list(ranked)
    # when each was said, by identity (a Memory's == compares every field); a move is among the first ``among`` only.
    # Said, not happening: "planning a trip to Kyoto in July", said the same day as "wants to try kaiseki in Kyoto",
    # is not the later statement of the two.
    when = {id(memory): said_at(memory) for memory in ranked[:among]}
    for newer in ranked[:among]:
        at = next(i for i, memory in enumerate(order) if memory is newer)
        for i, older in enumerate(order[:at]):
            if when[id(older)] >= when[id(newer)] or older.scores["final"] - newer.scores["final"] > margin:
                continue
            reason = reason_of(newer, older)
            if reason is not None:
                order.insert(i, order.pop(at))
                newer.explain[score] = f"said later, {reason}: above {older.memory_id} (within {margin:.3f} of it)"
                newer.set_score(score, 1.0, label)
                break
    return order
