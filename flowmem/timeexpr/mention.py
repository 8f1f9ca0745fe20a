"""Mentions: what a rule found in the text, before neighbouring mentions are combined.

A rule turns one regex match into a :class:`Mention`. Some mentions are complete ("last week",
"2023-05-05"); others carry pieces still to be placed: a bare weekday ("Friday", 周五), a month
or day of the month without a year ("March", 5号), a season ("summer"), a time of day ("at 3pm",
下午). Adjacent mentions merge ("last week" + "Friday", 去年 + 五月, "yesterday" + "at 3pm") and
:func:`resolve` turns the result into a :class:`~flowmem.timeexpr.calendar.Span`. Pieces left
without a neighbour become the occurrence the tense at their place points to (see
:mod:`flowmem.timeexpr.pick` and :mod:`flowmem.timeexpr.tense`; queries lean past), except mentions
marked not ``standalone``, which are too ambiguous on their own ("at 3", "the 5th", "morning") and
are dropped. A weekday beside a day of the month ("Friday the 28th", "Friday, May 10") picks the
date where both hold.

Clock hours. "3pm", "15:00", "03:00" and 下午三点 are unambiguous. A bare hour ("at 3",
"3 o'clock", 三点) from 1 to 5 is read as afternoon (15:00–17:00), 6 to 12 as written: in
conversation people rarely mean 3 a.m. With a part of the day the part decides: "evening"/晚上
moves 5–11 to 17–23, 12 to midnight and 1–4 past midnight into the next day (晚上一点 = 01:00
the next day); 中午 moves 1–5 to the afternoon; 凌晨 12 is 00:00.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Literal

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr import holidays, pick
from flowmem.timeexpr.calendar import Season, Span
from flowmem.timeexpr.tense import Tense, TenseReader

PartOfDay = Literal["early", "morning", "noon", "afternoon", "evening"]
PART_HOURS: dict[PartOfDay, tuple[int, int]] = {
    "early": (0, 6),  # 凌晨, "early morning" before dawn
    "morning": (6, 12),
    "noon": (11, 14),  # 中午: lunchtime rather than the single hour 12:00 ("noon" in English is 12:00)
    "afternoon": (12, 18),
    "evening": (18, 24),  # also "tonight", "last night", 晚上, 昨晚: the evening of that day
}


@dataclass(frozen=True, slots=True)
class TimeOfDay:
    """A part of the day, a clock hour, or both ("3 in the afternoon", 下午三点)."""

    part: PartOfDay | None = None
    hour: int | None = None
    meridiem: Literal["am", "pm"] | None = None
    literal: bool = False  # a 24-hour clock or otherwise unambiguous hour: taken as written

    def clock_hour(self) -> int:
        """Hours after midnight of the day it applies to; 24 or more means the next day."""
        hour = self.hour if self.hour is not None else 0
        if self.meridiem == "am":
            return 0 if hour == 12 else hour
        if self.meridiem == "pm":
            return hour if hour == 12 else hour + 12
        if self.literal or hour > 12:
            return hour
        if self.part == "afternoon":
            return hour if hour == 12 else hour + 12
        if self.part == "evening":
            if hour == 12:
                return 24
            return hour + 24 if hour <= 4 else hour + 12
        if self.part == "noon":
            return hour + 12 if 1 <= hour <= 5 else hour
        if self.part == "early":
            return hour % 12
        if self.part == "morning":
            return hour
        return hour + 12 if 1 <= hour <= 5 else hour

    def apply(self, day: date) -> Span:
        """This time of day on ``day``: an hour, or the part of the day (still a "day")."""
        if self.hour is None:
            start, end = PART_HOURS[self.part or "morning"]
            return cal.part_of_day_span(day, start, end)
        return cal.hour_span(day, self.clock_hour())


@dataclass(frozen=True, slots=True)
class Mention:
    """One time expression found in the text, possibly still incomplete.

    ``start``/``end`` are character offsets. ``anchor`` is a resolved range when the rule could
    resolve one; the other fields are pieces to place inside a neighbour's anchor or by default.
    """

    start: int
    end: int
    anchor: Span | None = None
    weekday: int | None = None
    month: int | None = None
    day: int | None = None
    season: Season | None = None
    tod: TimeOfDay | None = None
    standalone: bool = True
    explicit: bool = False  # the anchor is a calendar date as written, so a weekday beside it is redundant
    holiday: str | None = None  # a key of flowmem.timeexpr.holidays, its year still to place
    long_weekend: bool = False  # the holiday's long weekend ("Memorial Day weekend"), not its day
    weekend: bool = False  # a bare "weekend"/周末, its week still to place
    nth_day: int = 0  # the holiday's day counted from its first (国庆第二天: 1), its year still to place


WeeksAhead = Literal["week", "day"]
"""How a count of weeks ahead reads ("in two weeks", 两周后): see :func:`weeks_from_today`."""


@dataclass(frozen=True, slots=True)
class Context:
    """What rules see besides their match: the (normalised) text, the reference time, how to read counts."""

    text: str
    now: datetime
    today: date
    tense: TenseReader
    weeks_ahead: WeeksAhead = "week"


def weeks_from_today(ctx: Context, weeks: int) -> Span:
    """A count of ``weeks`` from today ("in two weeks", "3 weeks ago", 两周后; negative is back).

    With ``ctx.weeks_ahead == "week"`` (queries: "what am I doing in two weeks?", "what did I do two weeks ago?"
    ask about a period) it is the ISO week the day that many weeks away falls in. With ``"day"`` (messages: "the
    wedding is in two weeks", "I fell off my bike a week ago" state when an event is, and an event has a date) it is
    that day, back as ahead: the day a query's week holds, and the one the teller counted from.
    """
    moved = ctx.today + timedelta(weeks=weeks)
    if ctx.weeks_ahead == "day":
        return cal.day_span(moved)
    return cal.week_span(moved)


Builder = Callable[[re.Match[str], Context], "Mention | None"]
DIGIT = "#"
"""The trigger of rules that need a digit in the text."""


@dataclass(frozen=True, slots=True)
class Rule:
    """A regex and the function that turns each of its matches into a mention (or rejects it).

    ``triggers`` are lowercase words (or :data:`DIGIT`) at least one of which a text must contain
    for the rule to match at all; texts without any skip the rule's regex, which keeps the large
    case-insensitive English alternations off most queries. ``None``: always run.
    """

    name: str
    pattern: re.Pattern[str]
    build: Builder
    triggers: frozenset[str] | None = None


def resolve(mention: Mention, today: date, tense: Tense = "past") -> Span | None:
    """The range a mention denotes, or ``None`` when its pieces do not fit together.

    ``tense`` says which occurrence a bare name means (see :mod:`flowmem.timeexpr.pick`). Pieces
    that name no real date (30 February, a year past 9999) resolve to ``None`` too.
    """
    try:
        return _resolve(mention, today, tense)
    except (ValueError, OverflowError):
        return None


def _resolve(mention: Mention, today: date, tense: Tense) -> Span | None:
    base = mention.anchor
    if mention.holiday is not None:
        if mention.month is not None or mention.day is not None or mention.season is not None:
            return None
        base = _place_holiday(base, mention.holiday, mention.long_weekend, today, tense)
        if mention.nth_day and base is not None:
            base = cal.day_span(base.start.date() + timedelta(days=mention.nth_day))
        if mention.weekday is not None and base is not None:
            base = _place_weekday(base, mention.weekday, True, today, tense)
    elif mention.weekend:
        if base is not None or mention.season is not None or mention.month is not None or mention.day is not None:
            return None
        base = pick.weekend(today, tense)
        if mention.weekday is not None:
            base = _place_weekday(base, mention.weekday, False, today, tense)
    elif mention.month is not None or mention.day is not None:
        if mention.season is not None:
            return None
        base = _place_date(base, mention.month, mention.day, mention.weekday, today, tense)
    elif mention.weekday is not None:
        base = _place_weekday(base, mention.weekday, mention.explicit, today, tense)
    elif mention.season is not None:
        base = _place_season(base, mention.season, today, tense)
    elif base is None and mention.tod is not None:
        base = cal.day_span(today)
    if base is None or mention.tod is None:
        return base
    if base.granularity != "day":
        return None
    return mention.tod.apply(base.start.date())


def merge(left: Mention, right: Mention, today: date, tense: Tense = "past") -> Mention | None:
    """One mention from two adjacent ones, or ``None`` when they do not describe one time."""
    if left.anchor is not None and right.anchor is not None:
        return None
    if (left.weekday is not None and right.weekday is not None) or (left.season and right.season):
        return None
    if (left.month is not None and right.month is not None) or (left.day is not None and right.day is not None):
        return None
    if (left.holiday and right.holiday) or (left.weekend and right.weekend):
        return None
    tod = _merge_tod(left.tod, right.tod)
    if tod is False:
        return None
    merged = Mention(
        start=left.start,
        end=right.end,
        anchor=left.anchor or right.anchor,
        weekday=left.weekday if left.weekday is not None else right.weekday,
        month=left.month if left.month is not None else right.month,
        day=left.day if left.day is not None else right.day,
        season=left.season or right.season,
        tod=tod,
        explicit=left.explicit or right.explicit,
        holiday=left.holiday or right.holiday,
        long_weekend=left.long_weekend or right.long_weekend,
        weekend=left.weekend or right.weekend,
        nth_day=left.nth_day or right.nth_day,
    )
    return merged if resolve(merged, today, tense) is not None else None


def _merge_tod(left: TimeOfDay | None, right: TimeOfDay | None) -> TimeOfDay | Literal[False] | None:
    if left is None or right is None:
        return left or right
    if left.hour is not None and right.hour is not None:
        return False
    if left.part is not None and right.part is not None:
        return False
    hour_side, part_side = (left, right) if left.hour is not None else (right, left)
    return replace(hour_side, part=part_side.part)


def _place_date(
    base: Span | None, month: int | None, day: int | None, weekday: int | None, today: date, tense: Tense
) -> Span | None:
    if base is None:
        if day is None:
            assert month is not None
            return pick.month(today, month, tense) if weekday is None else None
        return pick.day_of_month(today, month, day, weekday, tense)
    if base.granularity == "year":
        if month is None:
            return None
        year = base.start.year
        return cal.month_span(year, month) if day is None else cal.day_span(date(year, month, day))
    if base.granularity == "month" and month is None and day is not None:
        return cal.day_span(date(base.start.year, base.start.month, day))
    return None


def _place_weekday(base: Span | None, weekday: int, explicit: bool, today: date, tense: Tense) -> Span | None:
    if base is None:
        return pick.weekday(today, weekday, tense)
    if base.granularity in ("week", "weekend"):
        return cal.day_span(cal.weekday_in_week(base.start.date(), weekday))
    if base.granularity == "day" and explicit:
        return base
    return None


def _place_season(base: Span | None, season: Season, today: date, tense: Tense) -> Span | None:
    if base is None:
        return pick.season(today, season, tense)
    if base.granularity == "year":
        return cal.season_span(season, base.start.year)
    return None


def _place_holiday(base: Span | None, key: str, long_weekend: bool, today: date, tense: Tense) -> Span | None:
    def on(year: int) -> Span | None:
        return holidays.long_weekend_of(key, year) if long_weekend else holidays.day_of(key, year)

    if base is None:
        return pick.yearly(today, on, tense)
    if base.granularity == "year":
        return on(base.start.year)
    return None
