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

from typing import Any

from flowmem.schema.memory import Memory
from flowmem.scoring.change import read_changes, subject_terms
from flowmem.timeexpr.recency import RecencyAsk

RECENCY_RANK = "recency_rank"
CHANGED_FIRST = "changed_first"


def when_of(memory: Memory) -> float:
    """When ``memory``'s event happened, else when it was said (else when it was stored), as a timestamp."""
    when = memory.event_time or memory.message_time or memory.created_at
    return when.timestamp()


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
    order = list(ranked)
    for newer in ranked[:among]:
        about = frozenset().union(*(change.about for change in read_changes(newer.content)))
        if not about:
            continue
        at = order.index(newer)
        for i, older in enumerate(order[:at]):
            shared = about & subject_terms(older.content)
            if when_of(older) < when_of(newer) and older.scores["final"] - newer.scores["final"] <= margin and shared:
                order.insert(i, order.pop(at))
                newer.explain[CHANGED_FIRST] = (
                    f"said later, states a change about {', '.join(sorted(shared))}: above {older.memory_id} "
                    f"(within {margin:.3f} of it)"
                )
                newer.set_score(CHANGED_FIRST, 1.0, label)
                break
    return order
