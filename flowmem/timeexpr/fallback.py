"""The last resort: dateparser, for numeric dates whose field order the own rules do not guess.

Only ``05/06/2023``, ``5.6.2023``, ``5-May-23``-style substrings reach it, and only when no rule
matched them: dateparser is slow to import and to warm up (about a second for the first Chinese
parse), so it stays off the hot path. Their order is dateparser's for the language (English:
month first, so 05/06/2023 is 6 May; Chinese: day first).
"""

from __future__ import annotations

import re
from datetime import datetime

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr.calendar import Span

CANDIDATE = re.compile(
    r"(?<![\d/.-])(?:\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})|\d{1,2}\.\d{1,2}\.\d{4}|\d{1,2}-[A-Za-z]{3}-(?:\d{4}|\d{2}))"
    r"(?![\d/.-]?\d)"
)


def parse_date(text: str, now: datetime, language: str) -> Span | None:
    """The span dateparser reads in ``text`` (a whole candidate date), or ``None``."""
    # Imported here: dateparser takes a noticeable time to import and is rarely needed.
    from dateparser.date import DateDataParser

    parser = DateDataParser(languages=[language], settings={"RELATIVE_BASE": now, "PREFER_DATES_FROM": "past"})
    data = parser.get_date_data(text)
    found = data.date_obj
    if found is None:
        return None
    if data.period == "year":
        return cal.year_span(found.year)
    if data.period == "month":
        return cal.month_span(found.year, found.month)
    return cal.day_span(found.date())
