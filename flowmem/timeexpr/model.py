"""The result of time extraction: the time parts a query names and the range it covers."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from flowmem.schema.timeparts import TimePart, WallClock

Granularity = Literal["hour", "day", "week", "weekend", "month", "season", "year", "range"]


def canonical_parts(granularity: Granularity, start: datetime, end: datetime | None = None) -> dict[TimePart, int]:
    """The parts that name a range of ``granularity`` beginning at ``start`` (and ending at ``end``).

    hour → year, month, day, hour; day (or a part of one) → year, month, day; week and weekend →
    the ISO year and ISO week of their Monday; month → year, month; season and year → year (a
    winter's year is the year of its December); range ("from the 3rd to the 7th") → the year, and
    the month when the whole range lies in one month (it needs ``end``).
    """
    if granularity == "range":
        last = (end or start + timedelta(microseconds=1)) - timedelta(microseconds=1)
        same_month = (last.year, last.month) == (start.year, start.month)
        return {"year": start.year, "month": start.month} if same_month else {"year": start.year}
    if granularity in ("week", "weekend"):
        iso = start.isocalendar()
        return {"year": iso[0], "week": iso[1]}
    if granularity == "hour":
        return {"year": start.year, "month": start.month, "day": start.day, "hour": start.hour}
    if granularity == "day":
        return {"year": start.year, "month": start.month, "day": start.day}
    if granularity == "month":
        return {"year": start.year, "month": start.month}
    return {"year": start.year}


class ExtractedTime(BaseModel):
    """A time a text speaks of: its parts, its range ``[start, end)`` and the words that said it.

    ``parts`` are what memories are matched on (see :mod:`flowmem.schema.timeparts`: ISO week,
    ISO weekday 1 = Monday); ``start``/``end`` are naive wall-clock datetimes. Rule results carry
    the :func:`canonical_parts` of their granularity; LLM results carry the parts the LLM gave.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    parts: dict[TimePart, int]
    start: WallClock
    end: WallClock
    expression: str
    granularity: Granularity
    source: Literal["rules", "llm"] = "rules"

    @model_validator(mode="after")
    def _check_range(self) -> ExtractedTime:
        if not self.start < self.end:
            raise ValueError(f"start ({self.start}) must be before end ({self.end})")
        return self

    def to_dict(self) -> dict[str, Any]:
        """The parts flat beside ``start``/``end`` (ISO strings), ``expression``, ``granularity``, ``source``."""
        flat: dict[str, Any] = {part: value for part, value in self.parts.items()}
        flat.update(
            start=self.start.isoformat(),
            end=self.end.isoformat(),
            expression=self.expression,
            granularity=self.granularity,
            source=self.source,
        )
        return flat
