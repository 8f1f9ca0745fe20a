"""Which memories a store call applies to, beyond the mandatory workspace scope."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from flowmem.schema.memory import EVENT_PARTS, MSG_PARTS, MemoryStatus, MemoryType
from flowmem.schema.timeparts import WallClock
from flowmem.suggest import unknown

PART_FIELDS: tuple[str, ...] = (*MSG_PARTS, *EVENT_PARTS)


def _as_tuple(value: Any) -> Any:
    if value is None or isinstance(value, tuple):
        return value
    return (value,) if isinstance(value, str) else tuple(value)


class MemoryFilter(BaseModel):
    """Conditions a memory must meet; every given condition must hold (AND).

    Attributes:
        target: One of these targets.
        memory_type: One of these types.
        status: One of these statuses.
        parts: Time-part equality, given as a mapping (``{"msg_year": 2024, "event_month": 5}``),
            kept as sorted ``(name, value)`` pairs.
        created_after: ``created_at >= created_after``.
        created_before: ``created_at < created_before``.
        source: The memory was derived from this message id.
        said_between: ``[start, end)``: the memory's message time (``msg_*`` parts) falls inside.
        happens_between: ``[start, end)``: the memory's event (its range, else its ``event_*`` parts
            taken as that day) overlaps it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: tuple[str, ...] | None = None
    memory_type: tuple[MemoryType, ...] | None = None
    status: tuple[MemoryStatus, ...] | None = None
    parts: tuple[tuple[str, int], ...] = ()
    created_after: WallClock | None = None
    created_before: WallClock | None = None
    source: str | None = None
    said_between: tuple[WallClock, WallClock] | None = None
    happens_between: tuple[WallClock, WallClock] | None = None

    _normalise = field_validator("target", "memory_type", "status", mode="before")(_as_tuple)

    @field_validator("parts", mode="before")
    @classmethod
    def _known_parts(cls, parts: Any) -> Any:
        # Given as a mapping, kept as sorted pairs so filters are hashable (usable as cache keys).
        pairs = sorted(parts.items()) if isinstance(parts, dict) else parts
        for name, _ in pairs:
            if name not in PART_FIELDS:
                raise ValueError(unknown("time part", name, PART_FIELDS))
        return tuple(pairs)

    def matches(self, memory: Any) -> bool:
        """Whether one memory (any object with the Memory fields) meets every condition."""
        if self.target is not None and memory.target not in self.target:
            return False
        if self.memory_type is not None and memory.memory_type not in self.memory_type:
            return False
        if self.status is not None and memory.status not in self.status:
            return False
        if any(getattr(memory, name) != value for name, value in self.parts):
            return False
        if self.created_after is not None and memory.created_at < self.created_after:
            return False
        if self.created_before is not None and memory.created_at >= self.created_before:
            return False
        if self.source is not None and self.source not in memory.source:
            return False
        if self.said_between is not None:
            said = memory.message_time
            if said is None or not self.said_between[0] <= said < self.said_between[1]:
                return False
        if self.happens_between is not None:
            span = event_span(memory)
            if span is None or not (span[0] < self.happens_between[1] and self.happens_between[0] < span[1]):
                return False
        return True

    @property
    def is_empty(self) -> bool:
        return self == NO_FILTER


NO_FILTER = MemoryFilter()


def created_epoch(value: datetime) -> int:
    """Wall-clock datetimes as comparable integers (seconds, as if UTC)."""
    return int((value - datetime(1970, 1, 1)).total_seconds())


def event_span(memory: Any) -> tuple[datetime, datetime] | None:
    """When a memory's event happens: its range, else the day (hour) its ``event_*`` parts name."""
    if memory.event_start is not None:
        end = memory.event_end if memory.event_end is not None else memory.event_start + timedelta(days=1)
        return memory.event_start, max(end, memory.event_start + timedelta(seconds=1))
    start = memory.event_time
    if start is None:
        return None
    return start, start + (timedelta(hours=1) if memory.event_hour >= 0 else timedelta(days=1))
