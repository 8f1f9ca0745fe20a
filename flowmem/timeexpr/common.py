"""Numeric rules shared by both languages: ISO-style dates, year-months and 24-hour clock times.

``2023-05-05``, ``2023/5/5`` and ``2023.5.5`` are read year-month-day; day-first and
month-first numeric dates (``05/06/2023``) are ambiguous across locales and left to the
dateparser fallback (see :mod:`flowmem.timeexpr.fallback`).
"""

from __future__ import annotations

import re
from datetime import date

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr.mention import DIGIT, Context, Mention, Rule, TimeOfDay

_ISO_DATE = re.compile(
    r"(?<![\d.:/-])(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})"
    r"(?:T(?P<h>[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?)?(?![\d.:/-]?\d)"
)
_YEAR_MONTH = re.compile(r"(?<![\d.:/-])(?P<y>\d{4})[-/](?P<m>0[1-9]|1[0-2])(?![\d:/-]|\.\d)")
_CLOCK = re.compile(r"(?<![\d:.])(?P<h>[01]?\d|2[0-4]):(?P<min>[0-5]\d)(?::[0-5]\d)?(?![\d:])")


def clock_time(hour_text: str, minute_text: str | None = None) -> TimeOfDay | None:
    """The time of day for ``H[:MM]`` as written; 24-hour when unambiguous (13–23, 0, leading 0)."""
    hour = int(hour_text)
    if hour > 24 or (minute_text is not None and int(minute_text) > 59):
        return None
    literal = hour == 0 or hour > 12 or (len(hour_text) == 2 and hour_text.startswith("0"))
    return TimeOfDay(hour=hour, literal=literal)


def _iso_date(match: re.Match[str], ctx: Context) -> Mention | None:
    month, day = int(match["m"]), int(match["d"])
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    anchor = cal.day_span(date(int(match["y"]), month, day))
    tod = TimeOfDay(hour=int(match["h"]), literal=True) if match["h"] else None
    return Mention(match.start(), match.end(), anchor=anchor, tod=tod, explicit=True)


def _year_month(match: re.Match[str], ctx: Context) -> Mention | None:
    return Mention(match.start(), match.end(), anchor=cal.month_span(int(match["y"]), int(match["m"])))


def _clock(match: re.Match[str], ctx: Context) -> Mention | None:
    tod = clock_time(match["h"], match["min"])
    return Mention(match.start(), match.end(), tod=tod) if tod is not None else None


_DIGITS = frozenset({DIGIT})
RULES: tuple[Rule, ...] = (
    Rule("iso_date", _ISO_DATE, _iso_date, _DIGITS),
    Rule("year_month", _YEAR_MONTH, _year_month, _DIGITS),
    Rule("clock", _CLOCK, _clock, _DIGITS),
)
