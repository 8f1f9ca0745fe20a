"""Named holidays, English and Chinese: one declarative table and the rules built from it.

Each :class:`Holiday` names its words in both languages and how its date falls in a year: a fixed
date, the n-th weekday of a month (``n = -1``: the last), Easter and days around it, a day of the
Chinese lunar calendar (from the generated table :mod:`flowmem.timeexpr.lunar_dates`, 2000–2050;
no date outside it; said by name or by its lunar date: 正月十五, 五月初五, 八月十五 — not 八月十五号, a Gregorian
date), or Qingming (a solar term: 4 or 5 April). US dates for the American holidays
(Mother's Day is the second Sunday of May, as in China); 万圣节 is read as Halloween (31 October).

Readings: a bare name is the occurrence the tense points to (:mod:`flowmem.timeexpr.pick`);
"last Christmas" is the latest one before today, "next Easter" the first after today, "this
Christmas" the one of this year, "Christmas 2023" / 2023年春节 / 去年中秋 the one of that year.
"Memorial Day weekend" is the long weekend around the holiday: Saturday to Monday for a Monday
holiday, Friday to Sunday for a Friday one, Thursday to Sunday for Thanksgiving; else the
weekend of its ISO week.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr import lunar_dates
from flowmem.timeexpr.calendar import Span

DateRule = Callable[[int], "date | None"]


def fixed(month: int, day: int) -> DateRule:
    """The same date every year."""
    return lambda year: date(year, month, day)


def nth_weekday(month: int, weekday: int, n: int) -> DateRule:
    """The ``n``-th ISO ``weekday`` of ``month`` (``n = -1``: the last)."""

    def on(year: int) -> date:
        if n > 0:
            first = date(year, month, 1)
            return first + timedelta(days=(weekday - first.isoweekday()) % 7 + 7 * (n - 1))
        last = date(*cal.add_months(year, month, 1), 1) - timedelta(days=1)
        return last - timedelta(days=(last.isoweekday() - weekday) % 7)

    return on


def easter(offset: int = 0) -> DateRule:
    """Western Easter Sunday (anonymous Gregorian computus) moved by ``offset`` days."""

    def on(year: int) -> date:
        a, b, c = year % 19, year // 100, year % 100
        d, e = divmod(b, 4)
        g = (8 * b + 13) // 25
        h = (19 * a + b - d - g + 15) % 30
        i, k = divmod(c, 4)
        lunar = (32 + 2 * e + 2 * i - h - k) % 7
        m = (a + 11 * h + 19 * lunar) // 433
        month = (h + lunar - 7 * m + 90) // 25
        return date(year, month, (h + lunar - 7 * m + 33 * month + 19) % 32) + timedelta(days=offset)

    return on


def lunar(month: int, day: int, offset: int = 0) -> DateRule:
    """A day of the lunar calendar (:func:`lunar_day`) in the Gregorian year its lunar year begins, moved by
    ``offset`` days; ``None`` outside 2000–2050."""

    def on(year: int) -> date | None:
        found = lunar_day(year, month, day)
        return found + timedelta(days=offset) if found is not None else None

    return on


def lunar_day(year: int, month: int, day: int) -> date | None:
    """The Gregorian date of ``day`` of the (not leap) ``month`` of lunar year ``year`` (腊月二十八 of the year whose
    new year fell in ``year``), from the generated month starts and lengths; ``None`` outside 2000–2050 or past the
    month's end (腊月三十 in a year whose 腊月 has 29 days)."""
    starts = lunar_dates.MONTH_STARTS.get(year)
    if starts is None or not 1 <= month <= 12 or not 1 <= day <= 30:
        return None
    if day == 30 and lunar_dates.MONTH_DAYS[year][month - 1] != "0":
        return None
    return date(year, 1, 1) + timedelta(days=starts[month - 1] + day - 1)


def qingming(year: int) -> date:
    """Qingming, the solar term: 4 or 5 April (the 21st-century formula [Y·0.2422 + 4.81] − [Y/4])."""
    y = year % 100
    return date(year, 4, int(y * 0.2422 + 4.81) - y // 4)


@dataclass(frozen=True, slots=True)
class Holiday:
    """One named holiday: its English and Chinese words (regex) and its date in a given year."""

    key: str
    en: str | None
    zh: str | None
    on: DateRule


_S = r"['’]?s"
_ZH_DIGIT = r"一二三四五六七八九十\d"  # 五一 beside more numerals is a number (十五一), not the holiday
HOLIDAYS: tuple[Holiday, ...] = (
    Holiday("new_years_eve", rf"new\s+year{_S}\s+eve", "跨年夜", fixed(12, 31)),
    Holiday("new_years_day", rf"new\s+year{_S}(?:\s+day)?", "元旦", fixed(1, 1)),
    Holiday("valentines_day", rf"(?:st\.?\s+)?valentine{_S}(?:\s+day)?", "情人节|情人節", fixed(2, 14)),
    Holiday("good_friday", r"good\s+friday", "耶稣受难日", easter(-2)),
    Holiday("easter_monday", r"easter\s+monday", None, easter(1)),
    Holiday("holy_saturday", r"easter\s+saturday|holy\s+saturday", None, easter(-1)),
    Holiday("easter", r"easter(?:\s+sunday)?", "复活节|復活節", easter()),
    Holiday("mothers_day", rf"mother{_S}\s+day", "母亲节|母親節", nth_weekday(5, 7, 2)),
    Holiday("fathers_day", rf"father{_S}\s+day", "父亲节|父親節", nth_weekday(6, 7, 3)),
    Holiday("memorial_day", r"memorial\s+day", None, nth_weekday(5, 1, -1)),
    Holiday("independence_day", r"independence\s+day", None, fixed(7, 4)),
    Holiday("labor_day", r"labou?r\s+day", None, nth_weekday(9, 1, 1)),
    Holiday("halloween", r"hallowe['’]?en", "万圣节|萬聖節", fixed(10, 31)),
    Holiday("thanksgiving", r"thanksgiving(?:\s+day)?", "感恩节|感恩節", nth_weekday(11, 4, 4)),
    Holiday("christmas_eve", r"(?:christmas|xmas)\s+eve", "平安夜", fixed(12, 24)),
    Holiday("christmas", r"christmas(?:\s+day)?|xmas", "圣诞节|聖誕節|圣诞|聖誕", fixed(12, 25)),
    Holiday("boxing_day", r"boxing\s+day", None, fixed(12, 26)),
    Holiday(
        "lunar_new_years_eve",
        rf"(?:lunar|chinese)\s+new\s+year{_S}\s+eve",
        "除夕|大年三十|年三十",
        lunar(1, 1, -1),
    ),
    Holiday(
        "lunar_new_year",
        rf"(?:lunar|chinese)\s+new\s+year(?:{_S}(?:\s+day)?)?|spring\s+festival",
        "春节|春節|大年初一|农历新年|農曆新年|正月初一",
        lunar(1, 1),
    ),
    # 小年, the kitchen god's day: 腊月二十三 (as the north and the national broadcast keep it), before the new year
    Holiday("little_new_year", None, "(?<![的])小年(?!夜)", lambda year: lunar_day(year - 1, 12, 23)),
    Holiday("lantern_festival", r"lantern\s+festival", "元宵节|元宵節|元宵|正月十五", lunar(1, 15)),
    Holiday("qingming", r"qingming(?:\s+festival)?|tomb[-\s]sweeping\s+day", "清明节|清明節|清明", qingming),
    Holiday("labour_day_cn", None, rf"劳动节|勞動節|(?<![{_ZH_DIGIT}])五一(?![{_ZH_DIGIT}])", fixed(5, 1)),
    Holiday("childrens_day_cn", None, "儿童节|兒童節|六一儿童节", fixed(6, 1)),
    Holiday("dragon_boat", r"dragon\s+boat\s+festival", "端午节|端午節|端午|五月初五", lunar(5, 5)),
    Holiday("qixi", r"qixi(?:\s+festival)?", "七夕节|七夕節|七夕|七月初七", lunar(7, 7)),
    Holiday(
        "mid_autumn",
        r"mid[-\s]autumn(?:\s+festival)?|moon\s+festival",
        rf"中秋节|中秋節|中秋|八月十五(?![{_ZH_DIGIT}号日號])",
        lunar(8, 15),
    ),
    Holiday("double_ninth", r"double\s+ninth(?:\s+festival)?", "重阳节|重陽節|重阳|重陽|九月初九", lunar(9, 9)),
    Holiday("national_day_cn", None, "国庆节|國慶節|国庆|國慶", fixed(10, 1)),
)
"""Every holiday the rules know, in the order they are tried: a name before a shorter one it contains."""

BY_KEY: dict[str, Holiday] = {holiday.key: holiday for holiday in HOLIDAYS}


def _alternation(words: dict[str, str]) -> str:
    # In table order, where an eve comes before its day ("Christmas Eve" before "Christmas"):
    # a regex takes the first alternative that matches, not the longest. Each is a named group.
    return "|".join(f"(?P<{key}>{pattern})" for key, pattern in words.items())


EN_NAMES = _alternation({h.key: h.en for h in HOLIDAYS if h.en})
"""One regex alternation of the English names, a named group per holiday key."""
_ZH_FIRST = "".join(
    sorted({re.sub(r"^\(\?<!\[[^\]]*\]\)", "", alt)[0] for h in HOLIDAYS if h.zh for alt in h.zh.split("|")})
)
# The lookahead on the first characters lets the regex skip most positions without trying 40 alternatives.
ZH_NAMES = rf"(?=[{_ZH_FIRST}])(?:{_alternation({h.key: h.zh for h in HOLIDAYS if h.zh})})"
"""The same for the Chinese names."""
EN_TRIGGERS = frozenset(
    {"new", "valentine", "valentines", "good", "easter", "mother", "mothers", "father", "fathers", "memorial",
     "independence", "labor", "labour", "halloween", "hallowe", "thanksgiving", "christmas", "xmas", "spring",
     "lantern", "qingming", "tomb", "dragon", "qixi", "mid", "moon", "double", "boxing", "holy"}
)  # fmt: skip
"""Words every English holiday name contains one of (the rule's trigger words: a text without any of them
skips the holiday regex; "year" or "friday" alone would send most questions through it)."""


def holiday_key(match: re.Match[str]) -> str:
    """Which holiday matched (the name of the group that took part in ``match``)."""
    for key, value in match.groupdict().items():
        if value is not None and key in BY_KEY:
            return key
    raise ValueError(f"no holiday group in {match.group()!r}")


def day_of(key: str, year: int) -> Span | None:
    """The day of holiday ``key`` in ``year``, or ``None`` when it has no date that year."""
    found = BY_KEY[key].on(year)
    return cal.day_span(found) if found is not None else None


def long_weekend_of(key: str, year: int) -> Span | None:
    """The long weekend around holiday ``key`` in ``year`` (see the module docstring)."""
    found = BY_KEY[key].on(year)
    if found is None:
        return None
    weekday = found.isoweekday()
    if weekday == 1:  # Saturday to Monday
        first, last = found - timedelta(days=2), found
    elif weekday in (4, 5):  # Thursday or Friday to Sunday
        first, last = found, found + timedelta(days=7 - weekday)
    else:
        saturday = cal.monday_of(found) + timedelta(days=5)
        first, last = saturday, saturday + timedelta(days=1)
    return Span(cal.midnight(first), cal.midnight(last + timedelta(days=1)), "weekend")
