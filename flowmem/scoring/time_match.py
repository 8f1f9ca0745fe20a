"""Whether a memory's time matches the time a query speaks of.

As MemoryScope defined it, plus overlap with the query's range. A memory matches when

1. its *event* matches: its event range, when it has one, overlaps the query's range; else
   every time part the query names (year, month, day, week, weekday, hour) equals the memory's
   event part or is unknown there, at least one is equal, **and** the span those parts pin down
   (year+month+day → that day, year+month → that month, year → that year) overlaps the query's
   range without being coarser than it. So an event known only as "July 2024" does not match
   "last weekend", though its year equals; or
2. its *message* time (when it was said) falls inside the query's range.

So "what did I do last weekend?" matches memories said that weekend and memories of events
that happened that weekend, whenever they were said.
"""

from __future__ import annotations

from flowmem.schema.event_span import event_span
from flowmem.schema.memory import Memory
from flowmem.schema.timeparts import UNKNOWN
from flowmem.timeexpr.model import ExtractedTime


def time_match(memory: Memory, query_time: ExtractedTime) -> tuple[bool, str]:
    """``(matched, why)`` for one memory; ``why`` is a short human-readable reason."""
    start, end = query_time.start, query_time.end
    if memory.event_start is not None or _parts_agree(memory, query_time):
        span = event_span(memory, partial=True)
        if span is not None and span[0] < end and start < span[1]:
            explicit = memory.event_start is not None
            if explicit or span[1] - span[0] <= end - start:
                return True, "event range overlaps the query's time" if explicit else "event time is the query's"
    said = memory.message_time
    if said is not None and start <= said < end:
        return True, "said within the query's time"
    return False, "time does not match the query's"


def _parts_agree(memory: Memory, query_time: ExtractedTime) -> bool:
    """MemoryScope's rule: each named part equals the event part or is unknown; one at least is equal."""
    equal = 0
    for part, value in query_time.parts.items():
        mine = getattr(memory, f"event_{part}")
        if mine == UNKNOWN:
            continue
        if mine != value:
            return False
        equal += 1
    return equal > 0
