"""Ranges: two times joined by "to"/"until"/"-"/到/至, and English "May 3-7" written in one piece.

Two expressions joined by :data:`EN_JOINT` or :data:`ZH_JOINT` ("from the 3rd to the 7th",
"Monday to Wednesday", "3pm-5pm", 3号到7号, 周一至周三) are made one range by
:func:`flowmem.timeexpr.compose.join_ranges`. "May 3-7" has no second expression (a bare "7" is
not a time), so :data:`EN_RULES` reads it whole: the 3rd to the 7th of the May the tense points to.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr import en, pick
from flowmem.timeexpr.calendar import Span
from flowmem.timeexpr.mention import Context, Mention, Rule
from flowmem.timeexpr.numerals import ZH_NUMERAL_CHARS, zh_number

EN_JOINT = r"\s*(?:-|–|—|\b(?:to|until|till|through|thru|and)\b)\s*(?:the\s+)?"
"""What joins the two ends of an English range ("and" only after "between", checked by the caller)."""
ZH_JOINT = r"\s*(?:到|至|~|～|-|–|—)\s*"
"""What joins the two ends of a Chinese range (3号到7号, 周一至周三)."""

_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_MONTH_DAY_RANGE = re.compile(
    rf"\b(?P<mon>{en.MONTH})\.?\s+(?P<d>{_DAY})\s*(?:-|–|—|to|through|thru|until|till)\s*(?P<d2>{_DAY})\b"
    rf"(?!\s*(?:[ap]\.?m\b|:|(?:{en.MONTH})\b))(?:,?\s+(?P<y>{en.YEAR})\b)?",
    re.IGNORECASE,
)


def _month_day_range(match: re.Match[str], ctx: Context) -> Mention | None:
    month = en.MONTHS[match["mon"].lower()]
    first, last = int(match["d"].rstrip("stndrh")), int(match["d2"].rstrip("stndrh"))
    if not 1 <= first < last <= 31 or match["mon"] == "may":
        return None  # "may 3 to 5 people come?"
    if match["y"]:
        year = int(match["y"])
    else:
        start = pick.day_of_month(ctx.today, month, first, None, ctx.tense.at(match.start()))
        if start is None:
            return None
        year = start.start.year
    end = cal.midnight(date(year, month, last)) + timedelta(days=1)
    return Mention(match.start(), match.end(), anchor=Span(cal.midnight(date(year, month, first)), end, "range"))


EN_RULES: tuple[Rule, ...] = (Rule("en_month_day_range", _MONTH_DAY_RANGE, _month_day_range, frozenset(en.MONTHS)),)

_ZH_NUM = rf"[\d{ZH_NUMERAL_CHARS}]{{1,3}}"
# 12月20、21号两天, 3月3-5号, 5月1号和2号: the days of one month, listed or joined, written in one piece.
_ZH_MONTH_DAYS = re.compile(
    rf"(?P<m>{_ZH_NUM})月(?P<d>{_ZH_NUM})[号日]?\s*(?:、|，|,|和|-|–|—|~|～)\s*(?P<d2>{_ZH_NUM})[号日]"
)


def _zh_month_days(match: re.Match[str], ctx: Context) -> Mention | None:
    month, first, last = zh_number(match["m"]), zh_number(match["d"]), zh_number(match["d2"])
    if month is None or first is None or last is None or not (1 <= month <= 12 and 1 <= first < last <= 31):
        return None
    start = pick.day_of_month(ctx.today, month, first, None, ctx.tense.at(match.start()))
    if start is None or last > (cal.month_span(start.start.year, month).end - timedelta(days=1)).day:
        return None
    year = start.start.year
    end = cal.midnight(date(year, month, last)) + timedelta(days=1)
    return Mention(match.start(), match.end(), anchor=Span(cal.midnight(date(year, month, first)), end, "range"))


ZH_RULES: tuple[Rule, ...] = (Rule("zh_month_days", _ZH_MONTH_DAYS, _zh_month_days),)
