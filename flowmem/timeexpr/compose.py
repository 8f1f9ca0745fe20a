"""From the overlapping matches of many rules to the time expressions of a text.

1. :func:`select` keeps non-overlapping mentions, longest first ("上周末" over "上周" and "周末",
   "May 5th" over "May"); equal lengths go to the earlier one, then to the earlier rule.
2. :func:`compose` merges neighbours separated only by a connector (spaces, "at", "on", "of",
   "'s", 的 …) when they describe one time ("last week" + "on Friday", 昨天 + 下午三点), then
   resolves every mention and drops the pieces that mean nothing alone.
"""

from __future__ import annotations

import re
from datetime import date

from flowmem.timeexpr.calendar import Span
from flowmem.timeexpr.mention import Mention, merge, resolve


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


def compose(mentions: list[Mention], text: str, connector: re.Pattern[str], today: date) -> list[tuple[Mention, Span]]:
    """Merge adjacent mentions, resolve them, and keep those that stand on their own."""
    merged: list[Mention] = []
    for mention in mentions:
        if merged and connector.fullmatch(text, merged[-1].end, mention.start):
            combined = merge(merged[-1], mention, today)
            if combined is not None:
                merged[-1] = combined
                continue
        merged.append(mention)
    found: list[tuple[Mention, Span]] = []
    for mention in merged:
        if not mention.standalone:
            continue
        span = resolve(mention, today)
        if span is not None:
            found.append((mention, span))
    return found
