"""The table of natural memory questions and the exact time each one names.

Reference time: Wednesday 2024-05-15 14:30 (ISO week 20, Monday 13 May) unless a case names
another. Expected values are written out by hand; the helpers only add the fixed length of the
unit to the start (a day, 7 days, 2 days, …) and spell the parts.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, NamedTuple

WED = datetime(2024, 5, 15, 14, 30)  # Wednesday, ISO 2024-W20
SAT = datetime(2024, 5, 18, 10, 0)  # Saturday, ISO 2024-W20
NEW_YEAR = datetime(2025, 1, 1, 9, 0)  # Wednesday, ISO 2025-W01 (its Monday is 2024-12-30)
LEAP = datetime(2024, 2, 29, 12, 0)  # Thursday, leap day
AFTER_LEAP = datetime(2025, 3, 1, 8, 0)  # Saturday, the day after 28 February 2025


class Expected(NamedTuple):
    granularity: str
    start: datetime
    end: datetime
    parts: dict[str, int]


class Case(NamedTuple):
    query: str
    expected: Expected
    now: datetime = WED

    @property
    def id(self) -> str:
        return f"{self.query} @{self.now:%Y-%m-%d}"


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def day(text: str) -> Expected:
    start = _dt(text)
    parts = {"year": start.year, "month": start.month, "day": start.day}
    return Expected("day", start, start + timedelta(days=1), parts)


def part(text: str, start_hour: int, end_hour: int) -> Expected:
    base = _dt(text)
    parts = {"year": base.year, "month": base.month, "day": base.day}
    return Expected("day", base + timedelta(hours=start_hour), base + timedelta(hours=end_hour), parts)


def hour(text: str) -> Expected:
    start = _dt(text)
    parts = {"year": start.year, "month": start.month, "day": start.day, "hour": start.hour}
    return Expected("hour", start, start + timedelta(hours=1), parts)


def week(year: int, number: int, monday: str) -> Expected:
    start = _dt(monday)
    return Expected("week", start, start + timedelta(days=7), {"year": year, "week": number})


def weekend(year: int, number: int, saturday: str) -> Expected:
    start = _dt(saturday)
    return Expected("weekend", start, start + timedelta(days=2), {"year": year, "week": number})


def month(year: int, number: int) -> Expected:
    end = datetime(year + 1, 1, 1) if number == 12 else datetime(year, number + 1, 1)
    return Expected("month", datetime(year, number, 1), end, {"year": year, "month": number})


def season(year: int, first: str, end: str) -> Expected:
    return Expected("season", _dt(first), _dt(end), {"year": year})


def year(number: int) -> Expected:
    return Expected("year", datetime(number, 1, 1), datetime(number + 1, 1, 1), {"year": number})


SPRING_2024 = season(2024, "2024-03-01", "2024-06-01")
SUMMER_2023 = season(2023, "2023-06-01", "2023-09-01")
SUMMER_2024 = season(2024, "2024-06-01", "2024-09-01")
WINTER_2023 = season(2023, "2023-12-01", "2024-03-01")

EN_CASES: list[Case] = [
    Case("what did I do last weekend?", weekend(2024, 19, "2024-05-11")),
    Case("what am I doing this weekend?", weekend(2024, 20, "2024-05-18")),
    Case("any plans for next weekend?", weekend(2024, 21, "2024-05-25")),
    Case("what did I do over the weekend?", weekend(2024, 19, "2024-05-11")),
    Case("what did I do this past weekend?", weekend(2024, 19, "2024-05-11")),
    Case("what did I eat yesterday?", day("2024-05-14")),
    Case("what did I do today?", day("2024-05-15")),
    Case("what's on tomorrow?", day("2024-05-16")),
    Case("who did I meet the day before yesterday?", day("2024-05-13")),
    Case("what is planned for the day after tomorrow?", day("2024-05-17")),
    Case("what happened 3 days ago?", day("2024-05-12")),
    Case("where was I three days ago?", day("2024-05-12")),
    Case("what did I do a couple of days ago?", day("2024-05-13")),
    Case("what will I do in 2 days?", day("2024-05-17")),
    Case("what did I do last Friday?", day("2024-05-10")),
    Case("what did I do last Monday?", day("2024-05-13")),
    Case("what am I doing next Friday?", day("2024-05-17")),
    Case("what's planned for this Sunday?", day("2024-05-19")),
    Case("what did I do on Friday?", day("2024-05-10")),
    Case("who called me on Monday?", day("2024-05-13")),
    Case("what did I do on Wednesday?", day("2024-05-15")),
    Case("what did I do on Thursday?", day("2024-05-09")),
    Case("what did I do on Friday last week?", day("2024-05-10")),
    Case("what did I do last week on Tuesday?", day("2024-05-07")),
    Case("what did I do last week?", week(2024, 19, "2024-05-06")),
    Case("what am I doing this week?", week(2024, 20, "2024-05-13")),
    Case("what's happening next week?", week(2024, 21, "2024-05-20")),
    Case("what did I do two weeks ago?", week(2024, 18, "2024-04-29")),
    Case("what did I do the week before last?", week(2024, 18, "2024-04-29")),
    Case("what did I do a week ago?", week(2024, 19, "2024-05-06")),
    Case("what did I do last month?", month(2024, 4)),
    Case("what's planned for next month?", month(2024, 6)),
    Case("how much did I spend this month?", month(2024, 5)),
    Case("what did I buy three months ago?", month(2024, 2)),
    Case("what did I do a month ago?", month(2024, 4)),
    Case("where was I in March?", month(2024, 3)),
    Case("where was I in June?", month(2023, 6)),
    Case("what did I do in May?", month(2024, 5)),
    Case("what happened last May?", month(2023, 5)),
    Case("what will I do next March?", month(2025, 3)),
    Case("what did I do in March 2023?", month(2023, 3)),
    Case("what did I do in March last year?", month(2023, 3)),
    Case("what did I do on May 5th?", day("2024-05-05")),
    Case("what did I do on 5 May 2023?", day("2023-05-05")),
    Case("what happened on 2023-05-05?", day("2023-05-05")),
    Case("what did I do on December 25?", day("2023-12-25")),
    Case("what did I do on the 5th of May?", day("2024-05-05")),
    Case("what happened on the 3rd?", day("2024-05-03")),
    Case("what did I do on the 20th of last month?", day("2024-04-20")),
    Case("what did I do last summer?", SUMMER_2023),
    Case("what will I do this summer?", SUMMER_2024),
    Case("any plans for next summer?", season(2025, "2025-06-01", "2025-09-01")),
    Case("what did I do last winter?", WINTER_2023),
    Case("what did I do in the fall?", season(2023, "2023-09-01", "2023-12-01")),
    Case("what did I do in spring?", SPRING_2024),
    Case("where was I in the summer of 2022?", season(2022, "2022-06-01", "2022-09-01")),
    Case("what did I do last year?", year(2023)),
    Case("what's planned for next year?", year(2025)),
    Case("what have I done this year?", year(2024)),
    Case("what did I do two years ago?", year(2022)),
    Case("what did I do in 2021?", year(2021)),
    Case("what did I do at 3pm yesterday?", hour("2024-05-14T15:00")),
    Case("what was I doing yesterday at 9am?", hour("2024-05-14T09:00")),
    Case("what did I do at 15:00 yesterday?", hour("2024-05-14T15:00")),
    Case("what did I do last Friday at 8pm?", hour("2024-05-10T20:00")),
    Case("what did I do on May 5, 2023 at 3pm?", hour("2023-05-05T15:00")),
    Case("what did I eat at noon today?", hour("2024-05-15T12:00")),
    Case("what did I do 2 hours ago?", hour("2024-05-15T12:00")),
    Case("what did I eat this morning?", part("2024-05-15", 6, 12)),
    Case("what did I do this afternoon?", part("2024-05-15", 12, 18)),
    Case("what am I doing tonight?", part("2024-05-15", 18, 24)),
    Case("where did I go last night?", part("2024-05-14", 18, 24)),
    Case("what did I do yesterday afternoon?", part("2024-05-14", 12, 18)),
    Case("what did I do on Friday night?", part("2024-05-10", 18, 24)),
    Case("what did I do tomorrow morning?", part("2024-05-16", 6, 12)),
]

ZH_CASES: list[Case] = [
    Case("上周三我吃了什么？", day("2024-05-08")),
    Case("三天前我见了谁", day("2024-05-12")),
    Case("昨天我做了什么", day("2024-05-14")),
    Case("前天我去了哪里", day("2024-05-13")),
    Case("大前天我在干嘛", day("2024-05-12")),
    Case("今天有什么安排", day("2024-05-15")),
    Case("明天要做什么", day("2024-05-16")),
    Case("后天有什么计划", day("2024-05-17")),
    Case("两天前我买了什么", day("2024-05-13")),
    Case("我十天前去了哪", day("2024-05-05")),
    Case("二十一天前我在哪", day("2024-04-24")),
    Case("下周五有什么安排", day("2024-05-24")),
    Case("这周五我要做什么", day("2024-05-17")),
    Case("周三我做了什么", day("2024-05-15")),
    Case("星期一我见了谁", day("2024-05-13")),
    Case("礼拜五我去了哪里", day("2024-05-10")),
    Case("星期天我去了哪里", day("2024-05-12")),
    Case("上个星期天我在哪", day("2024-05-12")),
    Case("上周一开会说了什么", day("2024-05-06")),
    Case("上周我做了什么", week(2024, 19, "2024-05-06")),
    Case("本周的安排是什么", week(2024, 20, "2024-05-13")),
    Case("这周我做了什么", week(2024, 20, "2024-05-13")),
    Case("下周有什么计划", week(2024, 21, "2024-05-20")),
    Case("两周前我在做什么", week(2024, 18, "2024-04-29")),
    Case("上上周我去了哪里", week(2024, 18, "2024-04-29")),
    Case("上个星期我读了什么书", week(2024, 19, "2024-05-06")),
    Case("一个星期前我在干嘛", week(2024, 19, "2024-05-06")),
    Case("三周后有什么安排", week(2024, 23, "2024-06-03")),
    Case("上周末我做了什么", weekend(2024, 19, "2024-05-11")),
    Case("这周末有什么安排", weekend(2024, 20, "2024-05-18")),
    Case("本周末去哪玩", weekend(2024, 20, "2024-05-18")),
    Case("周末我做了什么", weekend(2024, 19, "2024-05-11")),
    Case("下周末要干什么", weekend(2024, 21, "2024-05-25")),
    Case("上个月我花了多少钱", month(2024, 4)),
    Case("这个月我读了几本书", month(2024, 5)),
    Case("本月的开销是多少", month(2024, 5)),
    Case("下个月有什么计划", month(2024, 6)),
    Case("上上个月我在哪", month(2024, 3)),
    Case("三个月前我在哪工作", month(2024, 2)),
    Case("五月我做了什么", month(2024, 5)),
    Case("六月我去了哪里", month(2023, 6)),
    Case("去年五月我去了哪里", month(2023, 5)),
    Case("明年三月我要去日本", month(2025, 3)),
    Case("2023年5月我在做什么", month(2023, 5)),
    Case("5月5日我做了什么", day("2024-05-05")),
    Case("5号我去了哪里", day("2024-05-05")),
    Case("5月20号有什么安排", day("2023-05-20")),
    Case("2023年5月5日发生了什么", day("2023-05-05")),
    Case("十二月二十五日我在哪", day("2023-12-25")),
    Case("上个月5号我做了什么", day("2024-04-05")),
    Case("去年夏天我去了哪里", SUMMER_2023),
    Case("去年的冬天冷吗", WINTER_2023),
    Case("今年春天我做了什么", SPRING_2024),
    Case("明年冬天去滑雪", season(2025, "2025-12-01", "2026-03-01")),
    Case("夏天我去了哪里", SUMMER_2023),
    Case("去年我去了哪些地方", year(2023)),
    Case("今年的目标是什么", year(2024)),
    Case("明年有什么打算", year(2025)),
    Case("前年我在哪里工作", year(2022)),
    Case("三年前我住在哪", year(2021)),
    Case("两年前我养了什么宠物", year(2022)),
    Case("2023年我做了什么", year(2023)),
    Case("昨天下午三点我在干什么", hour("2024-05-14T15:00")),
    Case("昨天晚上八点我在哪", hour("2024-05-14T20:00")),
    Case("昨晚八点我在哪", hour("2024-05-14T20:00")),
    Case("下午三点开会的是谁", hour("2024-05-15T15:00")),
    Case("两个小时前我说了什么", hour("2024-05-15T12:00")),
    Case("今天上午我做了什么", part("2024-05-15", 6, 12)),
    Case("昨晚我吃了什么", part("2024-05-14", 18, 24)),
    Case("今晚有什么安排", part("2024-05-15", 18, 24)),
    Case("上周五下午我见了谁", part("2024-05-10", 12, 18)),
]

OTHER_CASES: list[Case] = [
    # A Saturday: the current weekend has begun.
    Case("what did I do last weekend?", weekend(2024, 19, "2024-05-11"), SAT),
    Case("what am I doing this weekend?", weekend(2024, 20, "2024-05-18"), SAT),
    Case("what did I do on the weekend?", weekend(2024, 20, "2024-05-18"), SAT),
    Case("plans for next weekend?", weekend(2024, 21, "2024-05-25"), SAT),
    Case("what did I do last Saturday?", day("2024-05-11"), SAT),
    Case("what did I do on Saturday?", day("2024-05-18"), SAT),
    Case("上周末我做了什么", weekend(2024, 19, "2024-05-11"), SAT),
    Case("周末我做了什么", weekend(2024, 20, "2024-05-18"), SAT),
    Case("这周末有什么安排", weekend(2024, 20, "2024-05-18"), SAT),
    Case("昨天我做了什么", day("2024-05-17"), SAT),
    # New Year's Day 2025: ISO week 1 of 2025 began on Monday 30 December 2024.
    Case("what did I do last week?", week(2024, 52, "2024-12-23"), NEW_YEAR),
    Case("what am I doing this week?", week(2025, 1, "2024-12-30"), NEW_YEAR),
    Case("what did I do yesterday?", day("2024-12-31"), NEW_YEAR),
    Case("what did I do last month?", month(2024, 12), NEW_YEAR),
    Case("what did I do last year?", year(2024), NEW_YEAR),
    Case("what did I do in December?", month(2024, 12), NEW_YEAR),
    Case("what did I do last weekend?", weekend(2024, 52, "2024-12-28"), NEW_YEAR),
    Case("what did I do last winter?", WINTER_2023, NEW_YEAR),
    Case("what am I doing this winter?", season(2024, "2024-12-01", "2025-03-01"), NEW_YEAR),
    Case("上周我做了什么", week(2024, 52, "2024-12-23"), NEW_YEAR),
    Case("这周末有什么安排", weekend(2025, 1, "2025-01-04"), NEW_YEAR),
    Case("去年我去了哪里", year(2024), NEW_YEAR),
    Case("上个月花了多少钱", month(2024, 12), NEW_YEAR),
    # The leap day and the day after the next 28 February.
    Case("what did I do yesterday?", day("2024-02-28"), LEAP),
    Case("what's on tomorrow?", day("2024-03-01"), LEAP),
    Case("what did I do a year ago?", year(2023), LEAP),
    Case("what's planned for next month?", month(2024, 3), LEAP),
    Case("what will I do in 2 days?", day("2024-03-02"), LEAP),
    Case("what did I do on Feb 29?", day("2024-02-29"), LEAP),
    Case("一个月前我在哪", month(2024, 1), LEAP),
    Case("明天有什么安排", day("2024-03-01"), LEAP),
    Case("what did I do on February 29?", day("2024-02-29"), AFTER_LEAP),
    Case("2月29日我做了什么", day("2024-02-29"), AFTER_LEAP),
    Case("昨天我做了什么", day("2025-02-28"), AFTER_LEAP),
    # Mixed Chinese and English.
    Case("上周三的 meeting 说了什么", day("2024-05-08")),
    Case("what did 小王 say last week?", week(2024, 19, "2024-05-06")),
]

ALL_CASES = EN_CASES + ZH_CASES + OTHER_CASES


def as_expected(found: Any) -> Expected | None:
    """The comparable view of an extraction result."""
    if found is None:
        return None
    return Expected(found.granularity, found.start, found.end, dict(found.parts))
