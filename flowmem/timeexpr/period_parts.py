"""A part of a month, a year or a week: "early June", "mid-October", "late July", "the end of next week", "the
beginning of May", "at the end of the month", 五月初, 四月中旬, 去年底, 月底, 年初.

The rules find the period ("June", "next week", 去年); the word before it (English) or after it (Chinese) says
which part of it is meant, and narrows its range:

- early / the beginning of / the start of, 初, 上旬: the first third of a month (days 1–10), the first four
  months of a year, Monday–Wednesday of a week;
- mid / the middle of, 中旬: the middle third (11–20; May–August; Wednesday–Friday);
- late, 下旬: the last third (21 to the end; September–December; Friday–Sunday);
- the end of, 底, 末: the last day of a month or a week, December of a year (a move "at the end of the month", a
  lease, a deadline "by the end of the week" fall on it).

"the end of the month / year / week" and 月底, 月初, 年底, 年初 with no period named are the current one (the one the
text is said in).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Literal

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr.calendar import Span

Part = Literal["early", "mid", "late", "end", "so_far", "rest", "week1", "week2", "week3", "week4", "last_week"]
_EN_BEFORE = re.compile(
    r"(?:\b(?P<adj>earlier|later|early|mid|late)[\s-]+|\b(?:the\s+)?(?P<noun>beginning|start|middle|end)\s+of\s+(?:the\s+)?"
    r"|\b(?:the\s+)?(?P<nth>first|second|third|fourth|last|final)\s+(?:full\s+)?week\s+(?:of|in)\s+(?:the\s+)?)$",
    re.IGNORECASE,
)
_EN_PARTS: dict[str, Part] = {"early": "early", "beginning": "early", "start": "early", "mid": "mid", "middle": "mid",
                              "late": "late", "end": "end", "earlier": "so_far", "later": "rest", "first": "week1",
                              "second": "week2", "third": "week3", "fourth": "week4", "last": "last_week",
                              "final": "last_week"}  # fmt: skip
_ZH_AFTER = re.compile(r"的?(?P<part>上旬|中旬|下旬|初|底|末)")
_ZH_PARTS: dict[str, Part] = {"初": "early", "上旬": "early", "中旬": "mid", "下旬": "late", "底": "end", "末": "end"}
_EN_ALONE = re.compile(
    r"\b(?:the\s+)?(?P<noun>beginning|start|middle|end)\s+of\s+(?:the|this)\s+(?P<unit>month|year|week)\b",
    re.IGNORECASE,
)
# 月底, 年初: this month's, this year's — not 五月底 or 去年底 (a period the rules found: narrowed above).
_ZH_ALONE = re.compile(r"(?<![\d一二三四五六七八九十两〇零上下这本个去今明前后])(?P<unit>[月年])(?P<part>初|底|末)")
_UNITS = {"month": "month", "year": "year", "week": "week", "月": "month", "年": "year"}


def narrow(
    text: str, found: list[tuple[int, int, Span]], now: datetime, languages: tuple[str, ...] = ("en", "zh")
) -> list[tuple[int, int, Span]]:
    """``found`` (``(start, end, span)`` of each expression in ``text``) with each period a part word qualifies
    narrowed to that part (its words joined to the expression), and the parts of the current period said alone, in
    the ``languages`` the text is read in (月初 is no English)."""
    narrowed: list[tuple[int, int, Span]] = []
    for start, end, span in found:
        before = _EN_BEFORE.search(text, 0, start) if span.granularity in ("month", "year", "week") else None
        after = _ZH_AFTER.match(text, end) if span.granularity in ("month", "year") else None
        if before is not None and before.group("nth") and span.granularity != "month":
            before = None  # "the first week of the year" is no week of a month
        if before is not None and before.end() == start:
            word = (before.group("adj") or before.group("noun") or before.group("nth")).lower()
            narrowed.append((before.start(), end, _part(span, _EN_PARTS[word], now)))
        elif after is not None:
            narrowed.append((start, after.end(), _part(span, _ZH_PARTS[after.group("part")], now)))
        else:
            narrowed.append((start, end, span))
    taken = [(start, end) for start, end, _ in narrowed]
    for pattern in [p for p, language in ((_EN_ALONE, "en"), (_ZH_ALONE, "zh")) if language in languages]:
        for match in pattern.finditer(text):
            if any(match.start() < e and s < match.end() for s, e in taken):
                continue
            word = match.groupdict().get("noun") or match.group("part")
            part = _EN_PARTS.get(word.lower()) or _ZH_PARTS[word]
            narrowed.append((match.start(), match.end(), _part(_current(_UNITS[match.group("unit")], now), part, now)))
    # "the last week of June": the part's words may hold an expression of their own ("last week"), now inside it
    wider = [(start, end) for start, end, _ in narrowed]
    inside = [any(a <= start and end <= b and (a, b) != (start, end) for a, b in wider) for start, end, _ in narrowed]
    return sorted((item for item, dropped in zip(narrowed, inside, strict=True) if not dropped), key=lambda i: i[0])


def _current(unit: str, now: datetime) -> Span:
    today = now.date()
    if unit == "month":
        return cal.month_span(today.year, today.month)
    if unit == "year":
        return Span(datetime(today.year, 1, 1), datetime(today.year + 1, 1, 1), "year")
    monday = today - timedelta(days=today.weekday())
    return Span(cal.midnight(monday), cal.midnight(monday + timedelta(days=7)), "week")


def _part(span: Span, part: Part, now: datetime) -> Span:
    """The ``part`` of ``span`` (a month, a year or a week)."""
    first, last = span.start.date(), (span.end - timedelta(days=1)).date()
    today = now.date()
    if part in ("so_far", "rest"):  # "earlier this week": from its start to today; "later this month": tomorrow on
        if not first <= today <= last:
            part = "early" if part == "so_far" else "late"  # "earlier last week": its first part
        elif part == "so_far":
            return cal.days_span(first, today)
        else:
            return cal.days_span(min(today + timedelta(days=1), last), last)
    if part.startswith("week") or part == "last_week":  # the nth seven days of a month ("the first week of June")
        start = last - timedelta(days=6) if part == "last_week" else first + timedelta(days=7 * (int(part[4]) - 1))
        return cal.days_span(start, min(start + timedelta(days=6), last))
    if span.granularity == "year":
        months = {"early": (1, 4), "mid": (5, 8), "late": (9, 12), "end": (12, 12)}[part]
        return cal.days_span(
            date(first.year, months[0], 1), cal.month_span(first.year, months[1]).end.date() - timedelta(1)
        )
    if span.granularity == "week":
        days = {"early": (0, 2), "mid": (2, 4), "late": (4, 6), "end": (6, 6)}[part]
        return cal.days_span(first + timedelta(days=days[0]), first + timedelta(days=days[1]))
    bounds = {"early": (1, 10), "mid": (11, 20), "late": (21, last.day), "end": (last.day, last.day)}[part]
    return cal.days_span(first.replace(day=bounds[0]), first.replace(day=bounds[1]))
