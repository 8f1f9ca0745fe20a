"""When a memory's event happens, as one ``[start, end)`` range: the one rule stores and scoring share."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from flowmem.schema.timeparts import UNKNOWN


def event_span(memory: Any, *, partial: bool = False) -> tuple[datetime, datetime] | None:
    """The event's range, else the hour or day its ``event_*`` parts name; ``None`` when unknown.

    A range without an end lasts a day; an empty one a second (so it still overlaps its instant).

    Args:
        memory: A :class:`~flowmem.schema.memory.Memory` (or any object with its event fields).
        partial: Also give a range for parts that stop short of a day: year and month → that
            month, a year alone → that year. Time matching uses it ("July 2024" does overlap a
            query about July); store filters do not (``happens_between`` needs a known day).
    """
    if memory.event_start is not None:
        end = memory.event_end if memory.event_end is not None else memory.event_start + timedelta(days=1)
        return memory.event_start, max(end, memory.event_start + timedelta(seconds=1))
    year, month, day, hour = memory.event_year, memory.event_month, memory.event_day, memory.event_hour
    try:
        if year == UNKNOWN or (not partial and UNKNOWN in (month, day)):
            return None
        if month == UNKNOWN:
            return datetime(year, 1, 1), datetime(year + 1, 1, 1)
        if day == UNKNOWN:
            return datetime(year, month, 1), datetime(year + month // 12, month % 12 + 1, 1)
        first = datetime(year, month, day, max(hour, 0))
    except ValueError:
        return None  # parts that name no date (30 February)
    return first, first + (timedelta(hours=1) if hour != UNKNOWN else timedelta(days=1))
