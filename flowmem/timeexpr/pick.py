"""Which occurrence of a recurring name a text means, by tense.

Every bare name recurs: a weekday every week, "the 28th" every month, "June" and "Christmas"
every year, "Friday the 28th" a few times a year. For each one the two candidates are the
latest occurrence that has begun by today (``before``; it may be going on) and the first that
has not ended before today (``after``; the same one when today is inside it). Then:

- **past** → ``before``; **future** → ``after``;
- **neutral** → today's when today is inside one ("Party on Saturday!" said on a Saturday); else
  ``after`` when it begins within :data:`COMING_DAYS` days — a weekday, a day of the month, a
  weekend, a month about to begin; else the nearer of the two (a tie → ``after``).

Why neutral leans ahead for the near names: people tell the past in the past tense ("the party on
Saturday was fun", 周六的聚会很开心了), so a clause naming a weekday or a day of the month with no
past wording at all ("Party on Saturday!", "Dentist on the 28th", 周日的聚会) almost always
announces the coming one, even when the last one is nearer. A name that recurs yearly (a month, a
season, a holiday) is as often recalled as announced without a verb ("The conference in November",
said in March): the nearer one.

So said on Wednesday 2025-03-26: "on Saturday" is 22 March in the past, 29 March in the future
and when neutral; "on Monday" is 24 March in the past, 31 March in the future and when neutral.
The reference is the day the text was said (a query's timestamp, a message's time).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr.calendar import Season, Span
from flowmem.timeexpr.tense import Tense

COMING_DAYS = 31
"""Neutral wording names the coming occurrence when it begins within this many days (see the module docstring)."""


def choose(today: date, before: Span | None, after: Span | None, tense: Tense) -> Span | None:
    """``before`` or ``after`` as ``tense`` says (see the module docstring); one missing → the other."""
    if before is None or after is None:
        return before or after
    if tense == "past" or before == after:
        return before
    if tense == "future":
        return after
    start = cal.midnight(today)
    if before.end > start:
        return before  # today is inside it
    ahead = after.start - start
    if ahead <= timedelta(days=COMING_DAYS):
        return after
    behind = start - before.end
    return before if behind < ahead else after


def weekday(today: date, weekday: int, tense: Tense) -> Span:
    """The ISO ``weekday`` (1 = Monday) nearest ``today`` in ``tense``'s direction (today counts)."""
    before = cal.day_span(cal.weekday_on_or_before(today, weekday))
    after = cal.day_span(today + timedelta(days=(weekday - today.isoweekday()) % 7))
    found = choose(today, before, after, tense)
    assert found is not None
    return found


def weekend(today: date, tense: Tense) -> Span:
    """ "The weekend": the latest that has begun (past), the current or coming one (future), the nearer (neutral)."""
    before = cal.weekend_span(today if today.isoweekday() >= 6 else today - timedelta(days=7))
    after = before if today.isoweekday() >= 6 else cal.weekend_span(today)
    found = choose(today, before, after, tense)
    assert found is not None
    return found


def month(today: date, number: int, tense: Tense) -> Span:
    """Month ``number`` of the year ``tense`` points to (the current month counts both ways)."""
    before = cal.month_span(cal.month_on_or_before(today, number), number)
    after = cal.month_span(today.year if number >= today.month else today.year + 1, number)
    found = choose(today, before, after, tense)
    assert found is not None
    return found


def season(today: date, name: Season, tense: Tense) -> Span:
    """The ``name`` season ``tense`` points to (the current one counts both ways)."""
    before = cal.season_span(name, cal.season_started_on_or_before(today, name))
    current, _ = cal.season_containing(today)
    after = before if current == name else cal.season_span(name, cal.season_starting_after(today, name))
    found = choose(today, before, after, tense)
    assert found is not None
    return found


def day_of_month(today: date, month: int | None, day: int, weekday: int | None, tense: Tense) -> Span | None:
    """The date with that day (and month, and weekday, when given) ``tense`` points to.

    "Friday the 28th" is a 28th that is a Friday; "Friday, May 10" a 10 May that is a Friday, of the
    occurrences within a year either way (when only one of them is, whatever the tense). When no such
    date is near (within two years for a day of the month, a year either way for a date), the weekday
    is dropped: it was likely a slip, and the date itself is the firmer word.
    ``None`` when the date never exists (30 February).
    """
    if weekday is not None and month is not None:
        # A date and its weekday name one of the two nearest occurrences, the one that falls on it ("Sunday April 27",
        # said in January 2025, is 27 April 2025 whatever the tense: 27 April 2024 was a Saturday) — not the nearest
        # year it fell on that weekday, eleven years back.
        nearest = [_date_or_none(year, month, day) for year in (today.year - 1, today.year, today.year + 1)]
        near = [d for d in nearest if d is not None and abs((d - today).days) < 366]
        fitting = [d for d in near if d.isoweekday() == weekday]
        if len(fitting) == 1:
            return cal.day_span(fitting[0])
        if fitting:
            return _day_of_month(today, month, day, weekday, tense)
        return _day_of_month(today, month, day, None, tense)  # neither does: the weekday was a slip
    if weekday is not None:
        found = _day_of_month(today, month, day, weekday, tense)
        if found is not None:
            return found
    return _day_of_month(today, month, day, None, tense)


def _day_of_month(today: date, month: int | None, day: int, weekday: int | None, tense: Tense) -> Span | None:
    steps = 29 if month is not None else 25  # years for a date, months for a day of the month

    def fits(candidate: date | None) -> bool:
        return candidate is not None and (weekday is None or candidate.isoweekday() == weekday)

    def nth(k: int) -> date | None:
        if month is not None:
            return _date_or_none(today.year + k, month, day)
        year, number = cal.add_months(today.year, today.month, k)
        return _date_or_none(year, number, day)

    before = after = None
    for k in range(steps):
        back, ahead = nth(-k), nth(k)
        if before is None and back is not None and back <= today and fits(back):
            before = back
        if after is None and ahead is not None and ahead >= today and fits(ahead):
            after = ahead
        if before is not None and after is not None:
            break
    return choose(
        today,
        cal.day_span(before) if before is not None else None,
        cal.day_span(after) if after is not None else None,
        tense,
    )


def yearly(today: date, on: Callable[[int], Span | None], tense: Tense) -> Span | None:
    """A yearly occurrence (a holiday) ``tense`` points to; ``on(year)`` is that year's (or ``None``)."""
    before = after = None
    for year in (today.year - 1, today.year, today.year + 1):
        span = on(year)
        if span is None:
            continue
        if span.start.date() <= today:
            before = span
        if after is None and span.end.date() > today:
            after = span
    return choose(today, before, after, tense)


def _date_or_none(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None
