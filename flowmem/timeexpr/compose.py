"""From the overlapping matches of many rules to the time expressions of a text.

1. :func:`select` keeps non-overlapping mentions, longest first ("上周末" over "上周" and "周末",
   "May 5th" over "May"); equal lengths go to the earlier one, then to the earlier rule.
2. :func:`compose` merges neighbours separated only by a connector (spaces, "at", "on", "of",
   "'s", 的 …) when they describe one time ("last week" + "on Friday", 昨天 + 下午三点), then
   resolves every mention (bare names by the tense at their place) and drops the pieces that
   mean nothing alone.
3. :func:`join_ranges` makes one range of two expressions joined by "to"/"until"/"-"/到/至
   ("from the 3rd to the 7th", "Monday to Wednesday", 3号到7号): the second is placed on or
   after the first (so "the 7th" is that month's, "Wednesday" that week's), and a piece that
   means nothing alone ("the 7th") counts inside a range.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from flowmem.timeexpr.calendar import Span
from flowmem.timeexpr.mention import Mention, merge, resolve
from flowmem.timeexpr.tense import Tense, TenseReader

_BETWEEN = re.compile(r"\bbetween\b", re.IGNORECASE)


def select(mentions: list[Mention]) -> list[Mention]:
    """Non-overlapping mentions in text order; ``mentions`` is in rule order."""
    ranked = sorted(range(len(mentions)), key=lambda i: (mentions[i].start - mentions[i].end, mentions[i].start, i))
    kept: list[Mention] = []
    for index in ranked:
        candidate = mentions[index]
        if all(candidate.end <= other.start or other.end <= candidate.start for other in kept):
            kept.append(candidate)
    kept.sort(key=lambda mention: mention.start)
    return kept


def compose(
    mentions: list[Mention],
    text: str,
    connector: re.Pattern[str],
    today: date,
    tense: TenseReader,
    range_joint: re.Pattern[str] | None = None,
) -> list[tuple[Mention, Span]]:
    """Merge adjacent mentions, resolve them, and keep those that stand on their own.

    ``range_joint`` matches what joins the two ends of a range (``None``: no ranges).
    """
    merged: list[Mention] = []
    for mention in mentions:
        if merged and connector.fullmatch(text, merged[-1].end, mention.start):
            combined = merge(merged[-1], mention, today, _tense_of(merged[-1], mention, tense))
            if combined is not None:
                merged[-1] = combined
                continue
        merged.append(mention)
    found: list[tuple[Mention, Span]] = []
    index = 0
    while index < len(merged):
        mention = merged[index]
        index += 1
        if range_joint is not None and index < len(merged):
            joined = join_ranges(mention, merged[index], text, range_joint, today, tense)
            if joined is not None:
                found.append(joined)
                index += 1
                continue
        if not mention.standalone:
            continue
        span = resolve(mention, today, _tense_of(mention, None, tense))
        if span is not None:
            found.append((mention, span))
    return found


def _tense_of(mention: Mention, other: Mention | None, tense: TenseReader) -> Tense:
    """The tense at ``mention``, read only when a bare name needs it (reading costs a few µs)."""
    if not any(m is not None and _bare(m) for m in (mention, other)):
        return "past"  # "last week", "2023-05-05", "yesterday": the tense changes nothing
    return tense.at(mention.start)


def _bare(mention: Mention) -> bool:
    return (
        mention.weekday is not None
        or mention.month is not None
        or mention.day is not None
        or mention.season is not None
        or mention.holiday is not None
        or mention.weekend
    )


# A plan moved "from" one time "to" another names two times, not a span between them.
_MOVED_FROM = re.compile(
    r"\b(?:mov|chang|push|switch|reschedul|shift|bump|postpon|brought|pull)\w*\b[^.!?;]{0,40}?\bfrom\s+(?:the\s+)?\S+$",
    re.I,
)


def join_ranges(
    first: Mention, second: Mention, text: str, joint: re.Pattern[str], today: date, tense: TenseReader
) -> tuple[Mention, Span] | None:
    """One range from two mentions joined by ``joint``, or ``None`` when they are not a range."""
    found = joint.fullmatch(text, first.end, second.start)
    if found is None:
        return None
    if found.group().strip().lower() == "and" and not _BETWEEN.search(text, max(0, first.start - 12), first.end):
        return None  # "and" joins a range only after "between"
    if _MOVED_FROM.search(text[max(0, first.start - 60) : first.end]):
        return None  # "moved my appointment from Tuesday to Friday": from one day to another, not across them
    start = resolve(first, today, _tense_of(first, None, tense))
    if start is None:
        return None
    if (
        not second.standalone
        and second.tod is not None
        and second.day is None
        and (first.tod is None or first.tod.hour is None)
    ):
        return None  # "Friday to 3" is no range; "3pm to 5" is
    end = resolve(second, start.start.date(), "future")
    if end is None:
        return None
    # A clock time ends the range when it strikes ("3pm to 5pm" ends at 17:00), a day when it is over.
    until = end.start if end.granularity == "hour" else end.end
    if until <= start.start:
        return None
    return replace(first, end=second.end, standalone=True), Span(start.start, until, "range")
