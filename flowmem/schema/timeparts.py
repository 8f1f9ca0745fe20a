"""Time parts of a datetime: the integer fields memories are filtered and time-matched on.

flowmem keeps datetimes *naive, in wall-clock time*: "10:00 on 4 May" is what the user lived,
whatever the zone. An aware datetime keeps its wall-clock time and drops its zone, wherever it
comes from — a ``datetime``, ISO text (``2024-05-04T10:00:00+02:00`` is 10:00; ``…Z`` is the UTC
clock) or a Unix epoch number (seconds, read as UTC). So naive, offset and epoch times mix freely in
one file, and the result does not depend on the machine's time zone. To keep a local time, write
it naive or with its own offset.
``week`` is the ISO week number and ``weekday`` the ISO weekday (1 = Monday … 7 = Sunday);
an unknown part is ``-1``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator

TimePart = Literal["year", "month", "day", "week", "weekday", "hour"]
TIME_PARTS: tuple[TimePart, ...] = ("year", "month", "day", "week", "weekday", "hour")
UNKNOWN = -1
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def wall_clock(value: datetime) -> datetime:
    """``value`` as a naive wall-clock datetime, to the millisecond (what every store keeps)."""
    return value.replace(tzinfo=None, microsecond=value.microsecond // 1000 * 1000)


WallClock = Annotated[datetime, AfterValidator(wall_clock)]
"""A datetime field that stores wall-clock time, whatever form the value came in (see the module doc)."""


def time_parts(value: datetime) -> dict[TimePart, int]:
    """``{"year": 2024, "month": 5, "day": 4, "week": 18, "weekday": 6, "hour": 10}``."""
    iso = value.isocalendar()
    return {
        "year": value.year,
        "month": value.month,
        "day": value.day,
        "week": iso[1],
        "weekday": iso[2],
        "hour": value.hour,
    }


def prefixed_parts(prefix: Literal["msg", "event"], value: datetime | None) -> dict[str, int]:
    """``{"msg_year": …, …}`` from ``value``, or every part unknown when ``value`` is None."""
    if value is None:
        return {f"{prefix}_{part}": UNKNOWN for part in TIME_PARTS}
    return {f"{prefix}_{part}": number for part, number in time_parts(value).items()}


def format_when(value: datetime) -> str:
    """``[2024-05-04 10:00:00 Saturday]``-style text used in answers."""
    return f"{value:%Y-%m-%d %H:%M:%S} {WEEKDAY_NAMES[value.weekday()]}"
