"""A past told vaguely, for dating what a message tells: "the other day", "a few days ago", 前几天, 前两天, 前些天.

The rules of :mod:`flowmem.timeexpr` find no time in these on purpose: a question asked with one ("what did I do a
few days ago?") is better served by recency than by a hard range. A message that tells of an event so, though, did
not tell of today: :func:`vague_past` gives the range of days it points into, which the write path uses when the
message names no time of its own (:func:`flowmem.scoring.derive.with_event_time`).

- "the other day", 前几天, 前些天, 前些日子: the seven days before the day it was said;
- "a few days ago", "several days back": two to six days before;
- 前两天 (a couple of days, told loosely): one to four days before.

Only at the start of a clause or after its subject (我前几天, 前两天我): not 国庆前两天 or 考试前几天 (days before a
named day), nor 这两天 (now).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr.model import ExtractedTime, canonical_parts

_VAGUE = re.compile(
    r"\b(?P<other>the\s+other\s+day)\b|\b(?P<few>(?:a\s+few|several)\s+days\s+(?:ago|back))\b"
    r"|(?:^|(?<=[，。！？；,.!?;\s我他她们咱就也都还刚]))前(?P<n>几|两|些)(?:天|日子)",
    re.IGNORECASE,
)
_DAYS_BACK = {"other": (7, 1), "few": (6, 2), "几": (7, 1), "些": (7, 1), "两": (4, 1)}


def vague_past(text: str, said: datetime) -> ExtractedTime | None:
    """The days a vague past in ``text`` points into, relative to ``said``; ``None`` when it has none."""
    found = _VAGUE.search(text)
    if found is None:
        return None
    key = found["n"] or ("other" if found["other"] else "few")
    most, fewest = _DAYS_BACK[key]
    today = said.date()
    span = cal.days_span(today - timedelta(days=most), today - timedelta(days=fewest))
    return ExtractedTime(
        parts=canonical_parts(span.granularity, span.start, span.end),
        start=span.start,
        end=span.end,
        expression=found.group(),
        granularity=span.granularity,
    )
