"""The rules that find holiday names (:mod:`flowmem.timeexpr.holidays`) in English and Chinese text.

A bare name becomes a mention still to place (the tense picks the occurrence; a neighbouring year
places it: "Christmas last year", 去年春节, 2023年中秋); a modified or dated English name is placed
at once: "last Christmas" (the latest before today), "next Easter" (the first after today), "this
Christmas" (this year's), "Christmas 2023". "… weekend" is the long weekend around the holiday.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr import en, holidays, pick
from flowmem.timeexpr.calendar import Span
from flowmem.timeexpr.mention import Context, Mention, Rule
from flowmem.timeexpr.numerals import zh_number

_EN = re.compile(
    rf"\b(?:(?P<mod>{en.MODIFIER})\s+)?(?:{holidays.EN_NAMES})(?P<weekend>\s+(?:long\s+)?weekend)?\b"
    rf"(?:,?\s+(?P<y>{en.YEAR})\b)?",
    re.IGNORECASE,
)
# 国庆第二天, 春节的第三天: a day counted from the holiday's first.
_ZH = re.compile(rf"(?:{holidays.ZH_NAMES})(?:节?的?第(?P<nth>[一二两三四五六七八九十\d]{{1,3}})天)?")


def _occurrences(key: str, long_weekend: bool) -> Callable[[int], Span | None]:
    if long_weekend:
        return lambda year: holidays.long_weekend_of(key, year)
    return lambda year: holidays.day_of(key, year)


# A holiday's name before an event it names ("the xmas do", "Christmas party", "Halloween disco"): the event's own day
# is the one the text gives beside it, when it gives one ("xmas do fri 12th"; "Christmas party at Jess's" alone is the
# holiday's).
_EVENT_NOUN = re.compile(
    r"\s+(?:party|parties|do|dinner|lunch|meal|drinks|bash|fair|market|concert|show|play|disco|ball|quiz|social)\b",
    re.I,
)
_OTHER_DAY = re.compile(rf"\b(?:[12]?\d|3[01])(?:st|nd|rd|th)\b|\b(?:{en.WEEKDAY}|tomorrow|tmrw|tonight|today)\b", re.I)


def _en_holiday(match: re.Match[str], ctx: Context) -> Mention | None:
    key, long_weekend = holidays.holiday_key(match), match["weekend"] is not None
    if _EVENT_NOUN.match(ctx.text, match.end()) and _OTHER_DAY.search(
        ctx.text[: match.start()] + " " + ctx.text[match.end() :]
    ):
        return None
    on, direction, today = _occurrences(key, long_weekend), en.direction_of(match["mod"]), ctx.today
    candidates: list[Span | None]
    if match["y"]:
        candidates = [on(int(match["y"]))]
    elif direction is None:
        return Mention(match.start(), match.end(), holiday=key, long_weekend=long_weekend)
    elif direction == "this":
        candidates = [on(today.year)]
    elif direction == "last":
        candidates = [s for s in (on(today.year), on(today.year - 1)) if s is not None and s.start.date() < today]
    else:
        candidates = [s for s in (on(today.year), on(today.year + 1)) if s is not None and s.start.date() > today]
    anchor = candidates[0] if candidates else None
    return Mention(match.start(), match.end(), anchor=anchor, explicit=True) if anchor is not None else None


def _zh_holiday(match: re.Match[str], ctx: Context) -> Mention | None:
    nth = zh_number(match["nth"]) if match["nth"] else 1
    if nth is None or not 1 <= nth <= 15:
        return None
    return Mention(match.start(), match.end(), holiday=holidays.holiday_key(match), nth_day=nth - 1)


# A day of the lunar calendar (腊月二十八, 农历八月初三, 正月初五): read as lunar only when its words say
# so — 农历 / 阴历 before it, a month named only in the lunar calendar (正月, 冬月, 腊月), or a day counted
# with 初 or 廿 — so that 三月十五 (often a Gregorian date with its 号 left out) stays Gregorian; never
# before 号 / 日.
_ZH_LUNAR = re.compile(
    # 大年初二 … 大年初十: the first month's days (大年初一 is the new year itself, a holiday)
    r"(?P<cal>农历|阴历|農曆|陰曆)?(?:(?P<mon>正|十一|十二|冬|腊|臘|[一二三四五六七八九十])月|(?P<big>大年)(?=初[二三四五六七八九十]))"
    r"(?P<day>初[一二三四五六七八九十]|廿[一二三四五六七八九]|二十[一二三四五六七八九]?|十[一二三四五六七八九]|三十)"
    r"(?![号日號\d一二三四五六七八九十])"
)
_LUNAR_MONTHS = {"正": 1, "冬": 11, "腊": 12, "臘": 12}


def _zh_lunar_date(match: re.Match[str], ctx: Context) -> Mention | None:
    name, day_words = match["mon"] or "正", match["day"]
    if not (match["cal"] or name in _LUNAR_MONTHS or day_words[0] in "初廿"):
        return None
    month = _LUNAR_MONTHS.get(name) or zh_number(name)
    day = zh_number(day_words[1:]) if day_words[0] == "初" else zh_number(day_words.replace("廿", "二十"))
    if month is None or day is None:
        return None

    def on(year: int) -> Span | None:
        found = holidays.lunar_day(year, month, day)
        return cal.day_span(found) if found is not None else None

    span = pick.yearly(ctx.today, on, ctx.tense.at(match.start()))
    return Mention(match.start(), match.end(), anchor=span) if span is not None else None


EN_RULES: tuple[Rule, ...] = (Rule("en_holiday", _EN, _en_holiday, holidays.EN_TRIGGERS),)
ZH_RULES: tuple[Rule, ...] = (Rule("zh_holiday", _ZH, _zh_holiday), Rule("zh_lunar_date", _ZH_LUNAR, _zh_lunar_date))
