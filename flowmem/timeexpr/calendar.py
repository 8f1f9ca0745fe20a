"""Calendar arithmetic shared by the English and Chinese rules.

A :class:`Span` is a half-open range ``[start, end)`` of naive wall-clock datetimes with the
granularity that names it. Weeks are ISO weeks (Monday first) in both languages. Seasons are
meteorological and northern: spring March–May, summer June–August, autumn September–November,
winter December–February; the winter of year *Y* runs from 1 December *Y* to 1 March *Y+1*.

The ``*_on_or_before`` helpers carry the past bias of unmodified expressions ("on Friday",
"in March", 周三, 五月): people ask a memory about what already happened, so a bare name means
its most recent occurrence up to and including today.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal

Granularity = Literal["hour", "day", "week", "weekend", "month", "season", "year", "range"]
Season = Literal["spring", "summer", "autumn", "winter"]
SEASON_START_MONTH: dict[Season, int] = {"spring": 3, "summer": 6, "autumn": 9, "winter": 12}


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open time range ``[start, end)`` and the unit it spans ("range": from one to another)."""

    start: datetime
    end: datetime
    granularity: Granularity


def midnight(day: date) -> datetime:
    """00:00 of ``day``."""
    return datetime(day.year, day.month, day.day)


def day_span(day: date) -> Span:
    """The whole of ``day``."""
    start = midnight(day)
    return Span(start, start + timedelta(days=1), "day")


def days_span(first: date, last: date) -> Span:
    """The days ``first`` to ``last``, both included (a "range"; one day is a "day")."""
    return Span(midnight(first), midnight(last + timedelta(days=1)), "day" if first == last else "range")


def part_of_day_span(day: date, start_hour: int, end_hour: int) -> Span:
    """Hours ``[start_hour, end_hour)`` of ``day``; still a "day" (a part of it, e.g. the morning)."""
    start = midnight(day)
    return Span(start + timedelta(hours=start_hour), start + timedelta(hours=end_hour), "day")


def hour_span(day: date, hour: int) -> Span:
    """The hour starting ``hour`` hours after midnight of ``day`` (24 or more runs into the next day)."""
    start = midnight(day) + timedelta(hours=hour)
    return Span(start, start + timedelta(hours=1), "hour")


def hour_span_at(moment: datetime) -> Span:
    """The clock hour containing ``moment``."""
    start = moment.replace(minute=0, second=0, microsecond=0)
    return Span(start, start + timedelta(hours=1), "hour")


def monday_of(day: date) -> date:
    """The Monday of ``day``'s ISO week."""
    return day - timedelta(days=day.weekday())


def week_span(day: date) -> Span:
    """The ISO week (Monday 00:00 to the next Monday) containing ``day``."""
    start = midnight(monday_of(day))
    return Span(start, start + timedelta(days=7), "week")


def weekend_span(day: date) -> Span:
    """Saturday 00:00 to Monday 00:00 of ``day``'s ISO week."""
    start = midnight(monday_of(day) + timedelta(days=5))
    return Span(start, start + timedelta(days=2), "weekend")


def add_months(year: int, month: int, count: int) -> tuple[int, int]:
    """``(year, month)`` moved by ``count`` months (negative goes back)."""
    index = year * 12 + month - 1 + count
    return index // 12, index % 12 + 1


def same_day_months_away(day: date, count: int) -> date:
    """The day of the month of ``day``, ``count`` months away (that month's last day when it is shorter): "this time
    last year", 下个月这时候."""
    year, month = add_months(day.year, day.month, count)
    last = (date(*add_months(year, month, 1), 1) - timedelta(days=1)).day
    return date(year, month, min(day.day, last))


def month_span(year: int, month: int) -> Span:
    """The 1st of the month to the 1st of the next."""
    next_year, next_month = add_months(year, month, 1)
    return Span(datetime(year, month, 1), datetime(next_year, next_month, 1), "month")


def year_span(year: int) -> Span:
    """1 January to the next 1 January."""
    return Span(datetime(year, 1, 1), datetime(year + 1, 1, 1), "year")


def season_span(season: Season, year: int) -> Span:
    """The three months of ``season`` in season-year ``year`` (winter *Y* starts in December *Y*)."""
    month = SEASON_START_MONTH[season]
    end_year, end_month = add_months(year, month, 3)
    return Span(datetime(year, month, 1), datetime(end_year, end_month, 1), "season")


def season_containing(day: date) -> tuple[Season, int]:
    """The season ``day`` falls in and its season-year (January 2024 is in winter 2023)."""
    if day.month <= 2:
        return "winter", day.year - 1
    seasons: tuple[Season, ...] = ("spring", "summer", "autumn", "winter")
    return seasons[(day.month - 3) // 3], day.year


def season_started_on_or_before(today: date, season: Season) -> int:
    """Season-year of the latest ``season`` that has begun by ``today`` (the current one counts)."""
    year = today.year
    while date(year, SEASON_START_MONTH[season], 1) > today:
        year -= 1
    return year


def season_ended_before(today: date, season: Season) -> int:
    """Season-year of the latest ``season`` that was over before ``today``."""
    year = today.year
    while season_span(season, year).end.date() > today:
        year -= 1
    return year


def season_this(today: date, season: Season) -> int:
    """Season-year of "this ``season``": the current one when we are in it, else the one of this year."""
    current, year = season_containing(today)
    return year if current == season else today.year


def season_starting_after(today: date, season: Season) -> int:
    """Season-year of the first ``season`` beginning after ``today`` ("the coming summer")."""
    year = today.year - 1
    while date(year, SEASON_START_MONTH[season], 1) <= today:
        year += 1
    return year


def weekday_on_or_before(today: date, weekday: int) -> date:
    """The latest ISO ``weekday`` (1 = Monday) on or before ``today``."""
    return today - timedelta(days=(today.isoweekday() - weekday) % 7)


def weekday_before(today: date, weekday: int) -> date:
    """The latest ISO ``weekday`` strictly before ``today``."""
    return today - timedelta(days=(today.isoweekday() - weekday - 1) % 7 + 1)


def weekday_after(today: date, weekday: int) -> date:
    """The first ISO ``weekday`` strictly after ``today``."""
    return today + timedelta(days=(weekday - today.isoweekday() - 1) % 7 + 1)


def weekday_in_week(day: date, weekday: int) -> date:
    """ISO ``weekday`` of ``day``'s ISO week."""
    return monday_of(day) + timedelta(days=weekday - 1)


def month_on_or_before(today: date, month: int) -> int:
    """Year of the latest ``month`` up to and including the current one."""
    return today.year if month <= today.month else today.year - 1


def month_before(today: date, month: int) -> int:
    """Year of the latest ``month`` strictly before the current one."""
    return today.year if month < today.month else today.year - 1


def month_after(today: date, month: int) -> int:
    """Year of the first ``month`` strictly after the current one."""
    return today.year if month > today.month else today.year + 1


def date_on_or_before(today: date, month: int | None, day: int) -> date | None:
    """The latest date on or before ``today`` with that day of the month (and month, when given).

    Looks back far enough for 29 February (8 years) or the 31st (a year); ``None`` when no such
    date exists (30 February).
    """
    if month is not None:
        for year in range(today.year, today.year - 9, -1):
            candidate = _date_or_none(year, month, day)
            if candidate is not None and candidate <= today:
                return candidate
        return None
    year, month_now = today.year, today.month
    for _ in range(13):
        candidate = _date_or_none(year, month_now, day)
        if candidate is not None and candidate <= today:
            return candidate
        year, month_now = add_months(year, month_now, -1)
    return None


def _date_or_none(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def nth_weekday(year: int, month: int, weekday: int, nth: int) -> date | None:
    """The ``nth`` ISO ``weekday`` of that month (``nth`` -1: the last); ``None`` when the month has no such one."""
    first = date(year, month, 1)
    days = [first + timedelta(days=(weekday - first.isoweekday()) % 7 + 7 * k) for k in range(5)]
    days = [day for day in days if day.month == month]
    if nth == -1:
        return days[-1]
    return days[nth - 1] if 1 <= nth <= len(days) else None
