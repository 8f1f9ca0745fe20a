"""English time expressions.

Readings chosen where English is ambiguous (the Chinese rules follow the same ones where they apply):

- **Unmodified names follow the tense** (:mod:`flowmem.timeexpr.pick`). Past, and neutral
  wording in a query (memory questions are about the past): "on Friday" / "Friday" is the latest
  Friday on or before today; "in March" the latest March up to and including the current month;
  "May 5th" the latest 5 May on or before today; "summer" the latest summer that has begun; "the
  weekend" the latest weekend that has begun (the current one on a Saturday or Sunday). Future
  ("we're meeting on Friday"): the first on or after today. Neutral in a message: the coming one when it is
  near (a weekday, a day of the month), else the nearer (see :mod:`flowmem.timeexpr.pick`).
  "Friday the 28th" is a 28th that is a Friday, in that direction.
- **Holidays** ("Christmas", "Memorial Day weekend", "Lunar New Year's Eve"): see
  :mod:`flowmem.timeexpr.holidays` (their rules are in :mod:`flowmem.timeexpr.holiday_rules`).
- **Ranges**: "from the 3rd to the 7th", "Monday to Wednesday", "between May 3 and May 7",
  "May 3-7", "3pm to 5pm" are one range from the start of the first to the end of the second.
- **"last"/"next" + weekday are the closest ones**: "last Monday" is the latest Monday strictly
  before today (on a Wednesday: two days ago), "next Friday" the first Friday strictly after
  today. "this Friday" is the Friday of the current ISO week, past or future.
- **"last"/"this"/"next" + week/weekend/month/year count calendar units** from the current one:
  "last weekend" is the weekend of the previous ISO week (on a weekday, the latest one that has
  fully passed; on Saturday or Sunday, the one before the current), "next weekend" the one of the
  next ISO week; "the coming weekend" the first one that has not begun.
- **Months**: "last March" is the latest March strictly before the current month, "next March"
  the first one strictly after it, "this March" the one of the current year.
- **Seasons**: "last summer" is the latest summer that is over; "this summer" the current one if
  we are in it, else the one of this year; "next summer" the one after "this summer".
- **Parts of the day**: "this morning" 06–12, "this afternoon" 12–18, "this evening"/"tonight"
  18–24, and "last night" is *yesterday* 18:00–24:00 (after midnight is today's early morning).
  A bare "morning"/"evening"/"night" only counts beside a day ("Friday night", "yesterday
  morning"); "noon" is 12:00.
- **Clock hours**: "3pm" and "15:00" as written; "at 3" / "3 o'clock" follow the bare-hour
  heuristic in :mod:`flowmem.timeexpr.mention`; "at 3" alone (no day, no part of day) is dropped
  ("at 3 stores").
- **Counts**: "3 days ago", "in 2 weeks", "a month ago" count from today in that unit ("2 weeks
  ago" is the ISO week containing the day 14 days back; "in 2 weeks" in a message, read with
  ``weeks_ahead="day"``, the day 14 days on: :func:`flowmem.timeexpr.mention.weeks_from_today`);
  "N hours/minutes ago" give the clock hour.
  "the past week" (a rolling window) and vague counts ("a few days ago") give nothing.
- Ambiguous words need context: "may", "fall", "spring" and abbreviations ("mar", "sat", "sun")
  count only after a preposition or modifier ("in May", "last fall", "on Sat") or beside a day or
  year ("May 5", "May 2023").

The expression of a mention includes a preposition and "the" right before it ("in March",
"on Friday", "over the weekend") so a caller can cut the whole phrase out of the query.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Literal

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr import pick
from flowmem.timeexpr.calendar import Season, Span
from flowmem.timeexpr.common import clock_time
from flowmem.timeexpr.mention import DIGIT, Context, Mention, PartOfDay, Rule, TimeOfDay, weeks_from_today
from flowmem.timeexpr.numerals import EN_CARDINAL, EN_DAY_OF_MONTH, EN_ORDINAL, EN_ORDINALS, en_number
from flowmem.timeexpr.texting import TEXTING_DAYS

_I = re.IGNORECASE
_WEEKDAYS: dict[str, int] = {
    "monday": 1, "mon": 1, "tuesday": 2, "tues": 2, "tue": 2, "wednesday": 3, "weds": 3, "wed": 3,
    "thursday": 4, "thurs": 4, "thur": 4, "thu": 4, "friday": 5, "fri": 5,
    "saturday": 6, "sat": 6, "sunday": 7, "sun": 7,
}  # fmt: skip
MONTHS: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip
_FULL_NAMES = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"} | {
    name for name in MONTHS if len(name) > 4 or name in ("june", "july")
}
WEEKDAY = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
"""Every English name of a weekday, whole or shortened, longest first (a regex alternation)."""
_WEEKDAY_BEFORE = re.compile(rf"\b(?:{WEEKDAY})\.?,?\s+$", re.IGNORECASE)
MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
YEAR = r"(?:1[89]\d\d|2[01]\d\d)"

Direction = Literal["last", "this", "next", "coming"]
MODIFIER = r"this\s+past|this\s+coming|the\s+coming|last|next|this|coming|past|previous|following"
_DIRECTIONS: dict[str, Direction] = {
    "this past": "last", "last": "last", "past": "last", "previous": "last",
    "this": "this", "next": "next", "following": "next",
    "this coming": "coming", "the coming": "coming", "coming": "coming",
}  # fmt: skip

_PREPOSITION_BEFORE = re.compile(
    r"(?:\b(?:in|on|at|during|over|around|about|throughout|from|between)\s+)?(?:\bthe\s+)?$", _I
)
_CONTEXT_BEFORE = re.compile(
    r"\b(?:in|on|at|during|over|since|until|till|by|of|from|through|throughout|early|mid|late|the|before|after"
    r"|around|this|last|next|past|coming)[\s-]+$",
    _I,
)
_ON_BEFORE = re.compile(r"\bon\s+$", _I)
_DATE_PREPOSITION_BEFORE = re.compile(r"\b(?:on|since|until|till|by)\s+$", _I)  # "since the 3rd", "by the 20th"
_WEEKDAY_CONTEXT_BEFORE = re.compile(r"\b(?:on|by|until|till|since|before|after)\s+$", _I)
# After "sun", "sat", "wed" (words too) only the end of the phrase or a time may follow: "on Sat", "on sat at 5".
_AFTER_WORD_ABBREVIATION = re.compile(r"\s*(?:$|[.,;:!?)]|at\b|\d|morning|afternoon|evening|night)", _I)
_WORD_ABBREVIATIONS = {"sun", "sat", "wed"}
_PART_AFTER = re.compile(r"\s+(?:morning|afternoon|evening|night|lunchtime)\b", _I)
# A weekday between a determiner and a noun names a thing by the day it recurs on ("the Monday swim", "our Friday
# drinks"), unless the word after is one of time or a preposition ("the Monday after next", "the Friday morning").
_DETERMINER_BEFORE = re.compile(r"\b(?:the|my|our|his|her|their|your|that|those|these)\s+$", _I)
_NOUN_AFTER = re.compile(
    r"\s+(?!(?:after|before|of|at|in|on|and|or|then|morning|afternoon|evening|night|lunchtime|just|is|was|we|i|you|he|"
    r"she|they|it|when|that|which|the|a|to|for|from|with|by|until|till|before|last|next|this|coming|gone)\b)[a-z]{2,}\b"
)
# A day told against another day is a day too: "the party is sat not fri", "wed instead of thurs".
_AGAINST_A_DAY = re.compile(rf"\s*,?\s*(?:not|instead\s+of|rather\s+than)\s+(?:on\s+)?(?:{WEEKDAY})\b", _I)
_TEXTED_DAYS = {"tue", "tues", "weds", "thu", "thur", "thurs", "fri"}  # abbreviations that are (almost) no English word


def extend_start(text: str, start: int) -> int:
    """``start`` moved back over a preposition and/or "the" right before it ("in the", "on", "over the")."""
    found = _PREPOSITION_BEFORE.search(text, max(0, start - 24), start)
    return found.start() if found is not None else start


def _after(pattern: re.Pattern[str], ctx: Context, start: int) -> bool:
    return pattern.search(ctx.text, max(0, start - 24), start) is not None


def direction_of(text: str | None) -> Direction | None:
    return _DIRECTIONS[" ".join(text.lower().split())] if text else None


# --- days and parts of the day -------------------------------------------------------------

_DAY_WORDS = re.compile(
    r"\b(?P<w>(?:the\s+)?day\s+before\s+yesterday|(?:the\s+)?day\s+after\s+tomorrow|yesterday|today|tomorrow"
    r"|(?:the\s+)?night\s+before\s+last|this\s+time\s+(?:(?:next|last)\s+(?:week|month|year)|yesterday|tomorrow)"
    rf"|tonight|tonite|last\s+night|this\s+(?:morning|afternoon|evening)|{'|'.join(TEXTING_DAYS)})\b",
    _I,
)
_DAY_OFFSETS: dict[str, tuple[int, PartOfDay | None]] = {
    "day before yesterday": (-2, None), "day after tomorrow": (2, None), "yesterday": (-1, None),
    "today": (0, None), "tomorrow": (1, None), "tonight": (0, "evening"), "tonite": (0, "evening"),
    "last night": (-1, "evening"), "this morning": (0, "morning"), "this afternoon": (0, "afternoon"),
    "this evening": (0, "evening"), "night before last": (-2, "evening"), "this time next week": (7, None),
    "this time last week": (-7, None), "this time yesterday": (-1, None), "this time tomorrow": (1, None),
}  # fmt: skip
# "this time last year", "this time next month": the same day a year or a month away (the month's last day when it has
# no such day)
_SAME_DAY_MONTHS = {"this time last month": -1, "this time next month": 1, "this time last year": -12,
                    "this time next year": 12}  # fmt: skip


def _day_word(match: re.Match[str], ctx: Context) -> Mention | None:
    key = " ".join(match["w"].lower().split()).removeprefix("the ")
    if key in _SAME_DAY_MONTHS:
        day = cal.same_day_months_away(ctx.today, _SAME_DAY_MONTHS[key])
        return Mention(match.start(), match.end(), anchor=cal.day_span(day))
    offset, part = _DAY_OFFSETS[TEXTING_DAYS.get(key, key)]
    tod = TimeOfDay(part=part) if part else None
    return Mention(match.start(), match.end(), anchor=cal.day_span(ctx.today + timedelta(days=offset)), tod=tod)


_PART_OF_DAY = re.compile(r"\b(?P<p>early\s+morning|morning|afternoon|evening|night|noon|midday)\b", _I)
_PARTS: dict[str, PartOfDay] = {"early morning": "early", "morning": "morning", "afternoon": "afternoon"}


def _part_of_day(match: re.Match[str], ctx: Context) -> Mention | None:
    word = " ".join(match["p"].lower().split())
    if word in ("noon", "midday"):
        return Mention(match.start(), match.end(), tod=TimeOfDay(hour=12, literal=True))
    # "morning" alone is a greeting or a habit more often than a time; it counts beside a day.
    return Mention(match.start(), match.end(), tod=TimeOfDay(part=_PARTS.get(word, "evening")), standalone=False)


_MERIDIEM_CLOCK = re.compile(r"\b(?P<h>1[0-2]|0?[1-9])(?::(?P<min>[0-5]\d))?\s*(?P<m>[ap])(?:m\b|\.m\b\.?)", _I)
_CLOCK_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_OCLOCK = re.compile(rf"\b(?P<h>1[0-2]|0?[1-9]|{_CLOCK_WORDS})\s*o['’]?clock\b", _I)
_AT_HOUR = re.compile(r"\b(?:at|around|about)\s+(?P<h>1[0-2]|0?[1-9])\b(?!\s*%|[:.,/]\d)", _I)


def _meridiem_clock(match: re.Match[str], ctx: Context) -> Mention | None:
    meridiem: Literal["am", "pm"] = "am" if match["m"].lower() == "a" else "pm"
    return Mention(match.start(), match.end(), tod=TimeOfDay(hour=int(match["h"]), meridiem=meridiem))


def _oclock(match: re.Match[str], ctx: Context) -> Mention | None:
    hour = en_number(match["h"])
    return Mention(match.start(), match.end(), tod=TimeOfDay(hour=hour)) if hour else None


def _at_hour(match: re.Match[str], ctx: Context) -> Mention | None:
    tod = clock_time(match["h"])
    return Mention(match.start(), match.end(), tod=tod, standalone=False) if tod else None


# --- weekdays, weeks, weekends, months, years ----------------------------------------------

_WEEKDAY_RE = re.compile(rf"\b(?:(?P<mod>{MODIFIER})\s+)?(?P<wd>{WEEKDAY})(?P<plural>s)?\b", _I)


def _weekday(match: re.Match[str], ctx: Context) -> Mention | None:
    name = match["wd"].lower()
    direction = direction_of(match["mod"])
    if match["plural"]:
        return None  # "on Fridays" is a habit, not a date
    if name not in _FULL_NAMES and direction is None:
        # Abbreviations need "on"/"by"/… before them, and "sun", "sat", "wed" also a clean end after; texting drops
        # the "on" ("got the keys fri"), so one that is no word of its own may stand at the end of its phrase.
        texted = name in _TEXTED_DAYS and _AFTER_WORD_ABBREVIATION.match(ctx.text, match.end())
        if _AGAINST_A_DAY.match(ctx.text, match.end()):
            return Mention(match.start(), match.end(), weekday=_WEEKDAYS[name])  # "the party is sat not fri"
        parted = _PART_AFTER.match(ctx.text, match.end()) is not None  # "gig is Sat night", "Wed morning"
        if not texted and not parted and not _after(_WEEKDAY_CONTEXT_BEFORE, ctx, match.start()):
            return None
        if name in _WORD_ABBREVIATIONS and not _AFTER_WORD_ABBREVIATION.match(ctx.text, match.end()):
            return None  # "on the sun lounger"
    weekday = _WEEKDAYS[name]
    if (
        direction is None
        and _after(_DETERMINER_BEFORE, ctx, match.start())
        and _NOUN_AFTER.match(ctx.text, match.end())
    ):
        return None  # "dropping the Monday swim", "my Tuesday class": the name of a thing that recurs, not a date
    if direction is None:
        return Mention(match.start(), match.end(), weekday=weekday)
    if direction == "last":
        day = cal.weekday_before(ctx.today, weekday)
    elif direction == "this":
        day = cal.weekday_in_week(ctx.today, weekday)
        if day < ctx.today and ctx.tense.at(match.start()) != "past":
            day = cal.weekday_after(ctx.today, weekday)  # "party this fri" said on a Saturday: the coming Friday
    else:
        day = cal.weekday_after(ctx.today, weekday)
    return Mention(match.start(), match.end(), anchor=cal.day_span(day))


_UNIT_RE = re.compile(
    rf"\b(?:(?P<mod>{MODIFIER})\s+(?P<unit>week|weekend|month|year)"
    r"|(?:the\s+)?(?P<unit2>week|weekend|month|year)\s+(?P<far>before\s+last|after\s+next)"
    r"|(?P<weekend>weekend))\b",
    _I,
)


def _unit(match: re.Match[str], ctx: Context) -> Mention | None:
    if match["weekend"]:
        return Mention(match.start(), match.end(), weekend=True)
    if match["far"]:
        unit, offset = match["unit2"].lower(), -2 if match["far"].lower().startswith("before") else 2
    else:
        direction = direction_of(match["mod"])
        unit = match["unit"].lower()
        if match["mod"].lower() == "past" and unit != "weekend":
            return None  # "the past week" is a rolling window, not a calendar week
        offset = {"last": -1, "this": 0, "next": 1, "coming": 1}[direction or "this"]
        if unit == "weekend" and direction == "coming":
            return Mention(match.start(), match.end(), anchor=_coming_weekend(ctx.today))
        if unit == "weekend" and direction == "this" and ctx.tense.at(match.start()) == "past":
            # "Moved in this weekend", said on a Monday: the weekend just gone, not the coming one of this ISO week
            span = _offset_span(unit, 0, ctx)
            if span.start.date() > ctx.today:
                span = _offset_span(unit, -1, ctx)
            return Mention(match.start(), match.end(), anchor=span)
    return Mention(match.start(), match.end(), anchor=_offset_span(unit, offset, ctx))


def _coming_weekend(today: date) -> Span:
    saturday = cal.monday_of(today) + timedelta(days=5)
    return cal.weekend_span(saturday if saturday > today else saturday + timedelta(days=7))


def _offset_span(unit: str, offset: int, ctx: Context) -> Span:
    """The ``unit`` ``offset`` units from the current one (``unit`` as in "3 weeks ago")."""
    if unit in ("hour", "hr", "minute", "min"):
        return cal.hour_span_at(ctx.now + timedelta(**{"hours" if unit[0] == "h" else "minutes": offset}))
    if unit == "day":
        return cal.day_span(ctx.today + timedelta(days=offset))
    if unit in ("week", "weekend", "fortnight"):
        moved = ctx.today + timedelta(weeks=offset * (2 if unit == "fortnight" else 1))
        return cal.weekend_span(moved) if unit == "weekend" else cal.week_span(moved)
    if unit == "month":
        return cal.month_span(*cal.add_months(ctx.today.year, ctx.today.month, offset))
    return cal.year_span(ctx.today.year + offset)


_COUNT_RE = re.compile(
    rf"\b(?:(?P<in>in)\s+)?(?P<n>{EN_CARDINAL}|half\s+an)\s+(?P<unit>minute|min|hour|hr|day|week|fortnight|month|year)s?"
    r"\b(?:\s+(?P<dir>ago|back|earlier|since|from\s+now|hence)(?P<today>\s+today)?)?",
    _I,
)


def _count(match: re.Match[str], ctx: Context) -> Mention | None:
    way = (match["dir"] or "").lower()
    if way in ("ago", "back", "earlier", "since"):  # "it's been three weeks since the surgery": three weeks ago
        sign = -1
    elif way or match["in"]:
        sign = 1
    else:
        return None  # "3 days" is a duration
    unit = match["unit"].lower()
    if match["n"].lower().startswith("half"):
        if unit not in ("hour", "hr"):
            return None
        unit, count = "minute", 30
    else:
        count = en_number(match["n"]) or 0
    if match["today"] and unit in ("week", "fortnight", "month", "year"):  # "three years ago today": that very day
        return Mention(match.start(), match.end(), anchor=cal.day_span(_same_day(ctx.today, unit, sign * count)))
    if unit in ("week", "fortnight"):
        weeks = sign * count * (2 if unit == "fortnight" else 1)
        return Mention(match.start(), match.end(), anchor=weeks_from_today(ctx, weeks))
    return Mention(match.start(), match.end(), anchor=_offset_span(unit, sign * count, ctx))


def _same_day(today: date, unit: str, offset: int) -> date:
    """The day ``offset`` ``unit``s from ``today`` on the same date (the month's last day when it has none)."""
    if unit in ("week", "fortnight"):
        return today + timedelta(weeks=offset * (2 if unit == "fortnight" else 1))
    year, month = cal.add_months(today.year, today.month, offset * (12 if unit == "year" else 1))
    last = (cal.month_span(year, month).end - timedelta(days=1)).day
    return date(year, month, min(today.day, last))


_MONTH_DAY = re.compile(
    rf"\b(?P<mon>{MONTH})\.?\s+(?:the\s+)?(?P<d>{EN_DAY_OF_MONTH})\b(?:,?\s+(?P<y>{YEAR})\b)?"
    rf"|\b(?P<d2>{EN_DAY_OF_MONTH})\s+(?:of\s+)?(?P<mon2>{MONTH})\b\.?(?:,?\s+(?P<y2>{YEAR})\b)?",
    _I,
)


def _month_day(match: re.Match[str], ctx: Context) -> Mention | None:
    name, day_text, year = match["mon"] or match["mon2"], match["d"] or match["d2"], match["y"] or match["y2"]
    day = en_number(day_text)
    if day is None or not 1 <= day <= 31:
        return None
    month = MONTHS[name.lower()]
    lowercase_may = name == "may" and match["mon"] is not None and day_text.isdigit() and not year
    if lowercase_may and not _after(_CONTEXT_BEFORE, ctx, match.start()):
        return None  # "may 2 people join?"
    if year:
        return Mention(match.start(), match.end(), anchor=cal.day_span(date(int(year), month, day)), explicit=True)
    return Mention(match.start(), match.end(), month=month, day=day)


_MONTH_RE = re.compile(rf"\b(?:(?P<mod>{MODIFIER})\s+)?(?P<mon>{MONTH})\b\.?(?:,?\s+(?:of\s+)?(?P<y>{YEAR})\b)?", _I)


def _month(match: re.Match[str], ctx: Context) -> Mention | None:
    name = match["mon"].lower()
    month, direction = MONTHS[name], direction_of(match["mod"])
    if match["y"]:
        return Mention(match.start(), match.end(), anchor=cal.month_span(int(match["y"]), month))
    if direction is None:
        # "may", "mar", "jan" and a lowercase "march" or "august" are often not months.
        ambiguous = name == "may" or name not in _FULL_NAMES or (name in ("march", "august") and match["mon"].islower())
        if ambiguous and not _after(_CONTEXT_BEFORE, ctx, match.start()):
            return None
        return Mention(match.start(), match.end(), month=month)
    if direction == "last":
        year = cal.month_before(ctx.today, month)
    elif direction == "this":
        year = ctx.today.year
    else:
        year = cal.month_after(ctx.today, month)
    return Mention(match.start(), match.end(), anchor=cal.month_span(year, month))


# "the 13th", and "on 15th" (texting drops the article; "on" makes it a day, not a rank), and "Tues 4th" (a weekday
# names the day of the month after it: the weekday and the day pick the date together).
_ORDINAL_DAY = re.compile(r"\b(?P<the>the\s*)?(?P<d>(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th))\b", _I)
# Spelt out ("on the twenty-first", "due by the third."), only after a preposition of dates and with no noun after it:
# "on the first floor", "the third time" are none.
_ORDINAL_WORD_DAY = re.compile(rf"\b(?:on|by|since|until|till)\s+(?P<the>the\s+(?P<d>{EN_ORDINAL}))\b", _I)


# What may follow "the 13th" when it is a date said alone: the end of the phrase, a time, or a word that starts no
# noun phrase ("wait no, the 13th, I misread it", "the 13th at 7", "the 13th not the 12th", "moved to the 19th because
# of the road works", "the 19th for dinner"); "the 5th time" has a noun.
_ORDINAL_DAY_AFTER = re.compile(
    r"\s*(?:$|[.,;:!?)\u2014-]|(?:at|not|instead|then|and|or|from|till|until|is|was|works?|because|cos|cuz|coz|so|but"
    r"|if|when|since|as|though|although|unless|due|thanks|now|already|too|anyway|lol|with|for|in|by|after|before"
    r"|during)\b|\d)",
    _I,
)


def _ordinal_day(match: re.Match[str], ctx: Context) -> Mention | None:
    # "on the 5th" is a date; "the 5th" alone may be "the 5th time", so it needs "on", a month beside it, or nothing
    # after it that could be its noun.
    day = en_number(match["d"])
    if not match["the"]:
        if _after(_WEEKDAY_BEFORE, ctx, match.start()):
            return Mention(match.start(), match.end(), day=day, standalone=False)  # "Tues 4th": with its weekday
        if not _after(_ON_BEFORE, ctx, match.start()):
            return None  # "my 2nd child": a rank
    alone = _ORDINAL_DAY_AFTER.match(ctx.text, match.end()) is not None
    with_article = match["the"] is not None  # "on 2nd thought": without it, only what follows tells
    standalone = alone or (with_article and _after(_DATE_PREPOSITION_BEFORE, ctx, match.start()))
    return Mention(match.start(), match.end(), day=day, standalone=standalone)


def _ordinal_word_day(match: re.Match[str], ctx: Context) -> Mention | None:
    if _NOUN_AFTER.match(ctx.text, match.end()):
        return None
    return Mention(match.start("the"), match.end(), day=en_number(match["d"]), standalone=True)


# A date in numbers without its year ("on 3/28", "flight 28/3"; with it, 05/06/2023, dateparser reads it: fallback).
# A first number that cannot be the month (28/3) tells the order; two that could each be ("on 4/3") are read month
# first, as US English and Chinese (3/28 is 3月28日) write them, and only after a word that leads to a date: "rated it
# 4/5", "1/2 a cup" are none.
_NUMERIC_DATE = re.compile(r"(?<![\w/.:-])(?P<a>[01]?\d|[23]\d)/(?P<b>[01]?\d|[23]\d)(?![\w/%]|\.\d|:\d)")
_DATE_WORD_BEFORE = re.compile(
    r"\b(?:on|by|due|until|till|til|before|after|from|since|for|thru|through|is|was|date|dated)\s+$", _I
)


def _numeric_date(match: re.Match[str], ctx: Context) -> Mention | None:
    a, b = int(match["a"]), int(match["b"])
    if a > 12 and b <= 12:
        day, month = a, b
    elif 1 <= a <= 12 and (b > 12 or _after(_DATE_WORD_BEFORE, ctx, match.start())):
        month, day = a, b
    else:
        return None
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    return Mention(match.start(), match.end(), month=month, day=day)


_YEAR_RE = re.compile(rf"\b(?:in|during|of|throughout|year)\s+(?:the\s+year\s+)?(?P<y>{YEAR})\b(?![-/.:]\d)", _I)


def _year(match: re.Match[str], ctx: Context) -> Mention | None:
    return Mention(match.start(), match.end(), anchor=cal.year_span(int(match["y"])))


_SEASON_RE = re.compile(
    rf"\b(?:(?P<mod>{MODIFIER})\s+)?(?P<s>spring|summer|autumn|fall|winter)(?P<plural>s)?\b"
    rf"(?:\s+(?:of\s+)?(?P<y>{YEAR})\b)?",
    _I,
)


def _season(match: re.Match[str], ctx: Context) -> Mention | None:
    word = match["s"].lower()
    season: Season = "autumn" if word == "fall" else word  # type: ignore[assignment]
    direction = direction_of(match["mod"])
    if match["plural"]:
        return None
    if match["y"]:
        return Mention(match.start(), match.end(), anchor=cal.season_span(season, int(match["y"])))
    if direction is None:
        context = _after(_CONTEXT_BEFORE, ctx, match.start())
        if not context and word in ("fall", "spring"):
            return None  # "I fall asleep", "a hot spring"
        # "summer" without a preposition counts beside a year ("last year's summer").
        return Mention(match.start(), match.end(), season=season, standalone=context)
    if direction == "last":
        year = cal.season_ended_before(ctx.today, season)
    elif direction == "this":
        year = cal.season_this(ctx.today, season)
    elif direction == "next":
        year = cal.season_this(ctx.today, season) + 1
    else:
        year = cal.season_starting_after(ctx.today, season)
    return Mention(match.start(), match.end(), anchor=cal.season_span(season, year))


# --- weekdays counted from another day ------------------------------------------------------

# "two Saturdays ago": the latest Saturday before today, and each one before it a week earlier.
_WEEKDAYS_AGO = re.compile(rf"\b(?P<n>{EN_CARDINAL})\s+(?P<wd>{WEEKDAY})s\s+ago\b", _I)


def _weekdays_ago(match: re.Match[str], ctx: Context) -> Mention | None:
    count = en_number(match["n"])
    if not count:
        return None
    day = cal.weekday_before(ctx.today, _WEEKDAYS[match["wd"].lower()]) - timedelta(weeks=count - 1)
    return Mention(match.start(), match.end(), anchor=cal.day_span(day))


# "Friday after next": the week after the coming Friday; "Monday before last": the week before the last Monday.
_WEEKDAY_FAR = re.compile(rf"\b(?:the\s+)?(?P<wd>{WEEKDAY})\s+(?P<far>after\s+next|before\s+last)\b", _I)


def _weekday_far(match: re.Match[str], ctx: Context) -> Mention | None:
    weekday = _WEEKDAYS[match["wd"].lower()]
    if match["far"].lower().startswith("after"):
        day = cal.weekday_after(ctx.today, weekday) + timedelta(weeks=1)
    else:
        day = cal.weekday_before(ctx.today, weekday) - timedelta(weeks=1)
    return Mention(match.start(), match.end(), anchor=cal.day_span(day))


# "a week from Friday", "a week on Friday" (British), "two weeks from tomorrow": that many weeks after the coming day
# named; British English also leaves the "from"/"on" out ("I start a week today", "a week Saturday"), but not after
# "for" or "once" ("off for a week today": a length).
_WEEKS_FROM = re.compile(
    rf"(?<!\bfor\s)(?<!\bonce\s)\b(?P<n>{EN_CARDINAL})\s+weeks?\s+(?P<on>(?:from|on)\s+)?"
    rf"(?P<wd>{WEEKDAY}|today|tomorrow)\b(?!\s+on\b)",
    _I,
)


def _weeks_from(match: re.Match[str], ctx: Context) -> Mention | None:
    count, base = en_number(match["n"]), match["wd"].lower()
    if not count:
        return None
    if not match["on"] and (base not in ("today", "tomorrow", *_FULL_NAMES) or ctx.tense.at(match.start()) == "past"):
        return None  # "two weeks tue" is too terse; "a week today" in a past clause counts back, not read here
    if base in ("today", "tomorrow"):
        day = ctx.today + timedelta(days=1 if base == "tomorrow" else 0)
    else:
        day = ctx.today + timedelta(days=(_WEEKDAYS[base] - ctx.today.isoweekday()) % 7)
    return Mention(match.start(), match.end(), anchor=cal.day_span(day + timedelta(weeks=count)))


# "Tuesday week", "Friday week" (British): a week after the coming day named (not "every Tuesday", "a Monday", "Tuesday
# week 3", "Friday weekend")
_DAY_WEEK = re.compile(
    # "coming Tuesday week" is the same day: the words before it do not make it "the coming Tuesday"
    rf"(?<!\bevery\s)(?<!\ba\s)\b(?:(?:this\s+)?coming\s+)?(?P<wd>{WEEKDAY})\s+week\b(?!\s*\d)(?![-\w])",
    _I,
)


def _day_week(match: re.Match[str], ctx: Context) -> Mention | None:
    if match["wd"].lower() not in _FULL_NAMES:
        return None  # "tue week" is too terse to be sure of
    day = ctx.today + timedelta(days=(_WEEKDAYS[match["wd"].lower()] - ctx.today.isoweekday()) % 7)  # as _weeks_from
    return Mention(match.start(), match.end(), anchor=cal.day_span(day + timedelta(weeks=1)))


# "the first weekend of July", "the last Friday of the month", "second Tuesday in March": the nth one of a month
# (a month named alone is the one the clause's tense points to, as "in July" is).
_NTH = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": -1}
_NTH_OF_MONTH = re.compile(
    rf"\b(?:the\s+)?(?P<nth>{'|'.join(_NTH)})\s+(?P<what>weekend|{WEEKDAY})\s+(?:of|in)\s+"
    rf"(?:(?P<mon>{MONTH})\b|(?:the|this)\s+month|(?P<next>next)\s+month)",
    _I,
)


def _nth_of_month(match: re.Match[str], ctx: Context) -> Mention | None:
    what = match["what"].lower()
    if what != "weekend" and what not in _FULL_NAMES:
        return None  # "the first sat of" is rarely a date; "the last sun of summer" is not a weekday
    if match["mon"]:
        span = pick.month(ctx.today, MONTHS[match["mon"].lower()], ctx.tense.at(match.start()))
        year, month = span.start.year, span.start.month
    else:
        year, month = cal.add_months(ctx.today.year, ctx.today.month, 1 if match["next"] else 0)
    day = cal.nth_weekday(year, month, 6 if what == "weekend" else _WEEKDAYS[what], _NTH[match["nth"].lower()])
    if day is None:
        return None
    return Mention(match.start(), match.end(), anchor=cal.weekend_span(day) if what == "weekend" else cal.day_span(day))


_DIGITS = frozenset({DIGIT})
_PART_WORDS = frozenset({"morning", "afternoon", "evening", "night", "noon", "midday"})
_ORDINAL_WORDS = frozenset(part for word in EN_ORDINALS for part in re.findall(r"[a-z]+", word))
_UNIT_WORDS = frozenset(
    f"{unit}{plural}"
    for unit in ("minute", "min", "hour", "hr", "day", "week", "fortnight", "month", "year")
    for plural in ("", "s")
)
RULES: tuple[Rule, ...] = (
    Rule(
        "en_day_word",
        _DAY_WORDS,
        _day_word,
        frozenset({"yesterday", "today", "tomorrow", "tonight", "tonite", "week", "month", "year", *TEXTING_DAYS})
        | _PART_WORDS,
    ),
    Rule("en_part_of_day", _PART_OF_DAY, _part_of_day, _PART_WORDS),
    Rule("en_meridiem_clock", _MERIDIEM_CLOCK, _meridiem_clock, _DIGITS),
    Rule("en_oclock", _OCLOCK, _oclock, frozenset({"clock", "oclock"})),
    Rule("en_at_hour", _AT_HOUR, _at_hour, _DIGITS),
    Rule("en_weekday", _WEEKDAY_RE, _weekday, frozenset(_WEEKDAYS)),
    Rule("en_unit", _UNIT_RE, _unit, frozenset({"week", "weekend", "month", "year"})),
    Rule("en_count", _COUNT_RE, _count, _UNIT_WORDS),
    Rule("en_month_day", _MONTH_DAY, _month_day, frozenset(MONTHS)),
    Rule("en_month", _MONTH_RE, _month, frozenset(MONTHS)),
    Rule("en_ordinal_day", _ORDINAL_DAY, _ordinal_day, _DIGITS),
    Rule("en_ordinal_word_day", _ORDINAL_WORD_DAY, _ordinal_word_day, _ORDINAL_WORDS),
    Rule("en_numeric_date", _NUMERIC_DATE, _numeric_date, _DIGITS),
    Rule("en_year", _YEAR_RE, _year, _DIGITS),
    Rule("en_season", _SEASON_RE, _season, frozenset({"spring", "summer", "autumn", "fall", "winter"})),
    Rule("en_weekdays_ago", _WEEKDAYS_AGO, _weekdays_ago, frozenset({"ago"})),
    Rule("en_weeks_from", _WEEKS_FROM, _weeks_from, frozenset({"week", "weeks"})),
    Rule("en_day_week", _DAY_WEEK, _day_week, frozenset({"week"})),
    Rule("en_weekday_far", _WEEKDAY_FAR, _weekday_far, frozenset({"next", "last"})),
    Rule("en_nth_of_month", _NTH_OF_MONTH, _nth_of_month, frozenset(_NTH)),
)
TRIGGER_WORDS: frozenset[str] = frozenset().union(*(rule.triggers or () for rule in RULES)) - {DIGIT}
"""Every word some English rule needs (the keyword gate's vocabulary)."""

CONNECTOR = r"(?:[\s,]|\b(?:at|on|in|of|the|during|around|about|from)\b|['’]s\b)*"
"""What may stand between two mentions of one time ("yesterday at 3pm", "Friday of last week")."""
