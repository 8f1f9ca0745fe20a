"""Event days of time expressions generated from a grammar, against an oracle written apart from the rules.

The labelled tables (``message_cases``) hold sentences people wrote; this holds every combination of a small grammar
— counts of days and weeks back and ahead, weekdays with each modifier, the weekend, months, dates of the month,
times of day, British "Tuesday week" — said on each day of one week, in sentences of each tense with the expression
before and after the event. The expected days come from plain date arithmetic below, with the conventions the
module docs state (a count of weeks back is that week; "last <weekday>" the one just gone; a bare weekday the coming
one in a plan and the one just gone in a report), so a change that breaks one family on one weekday fails here
whatever the labelled tables hold. Through the write path's own reading (``memory_from_message``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import NamedTuple

import pytest

from flowmem.schema.memory import Message
from flowmem.scoring.derive import memory_from_message

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ZH_WEEKDAYS = ["一", "二", "三", "四", "五", "六", "日"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]  # fmt: skip
WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 10: "ten"}
ZH_NUMBERS = {2: "两", 3: "三", 5: "五", 10: "十"}
# Said on each day of the week of Monday 10 March 2025, in the evening.
SAID = [datetime(2025, 3, day, 20, 0) for day in range(10, 17)]
TEMPLATES = {
    ("en", "past"): ["I went to the dentist {e}", "{e} I went climbing with Sam", "had dinner at Rosa's {e}, lovely"],
    ("en", "future"): ["dentist appointment {e}", "{e} I'm going climbing with Sam", "I've got a job interview {e}"],
    ("zh", "past"): ["{e}去看了牙医", "我{e}跟小王去爬山了", "{e}晚上吃了火锅"],
    ("zh", "future"): ["{e}要去看牙医", "我{e}跟小王去爬山", "{e}有个面试"],
}


class Case(NamedTuple):
    tense: str
    expression: str
    first: date
    last: date


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _month(day: date, step: int) -> tuple[date, date]:
    """The first and last day of the month ``step`` months from ``day``'s (-1, 0 or 1)."""
    first = day.replace(day=1)
    if step < 0:
        first = (first - timedelta(days=1)).replace(day=1)
    elif step > 0:
        first = (first + timedelta(days=32)).replace(day=1)
    return first, (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)


def _week(day: date) -> tuple[date, date]:
    return _monday(day), _monday(day) + timedelta(days=6)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 11 <= n % 100 <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _english(today: date) -> Iterator[Case]:
    def case(tense: str, expression: str, first: date, last: date | None = None) -> Case:
        return Case(tense, expression, first, last or first)

    day = timedelta(days=1)
    yield from (case("past", "yesterday", today - day), case("future", "tomorrow", today + day))
    yield from (
        case("past", "the day before yesterday", today - 2 * day),
        case("future", "the day after tomorrow", today + 2 * day),
    )
    yield from (
        case("past", "last night", today - day),
        case("past", "this morning", today),
        case("future", "tonight", today),
    )
    yield from (case("future", "at 3pm tomorrow", today + day), case("future", "a week tomorrow", today + 8 * day))
    for n in (2, 3, 5, 10):
        yield from (
            case("past", f"{n} days ago", today - n * day),
            case("past", f"{WORDS[n]} days ago", today - n * day),
        )
        yield from (
            case("future", f"in {n} days", today + n * day),
            case("future", f"in {WORDS[n]} days", today + n * day),
        )
    yield from (case("future", "in a week", today + 7 * day), case("future", "in a fortnight", today + 14 * day))
    for n in (2, 3):
        yield case("future", f"in {WORDS[n]} weeks", today + 7 * n * day)
        yield case("past", f"{WORDS[n]} weeks ago", *_week(today - 7 * n * day))
    yield case("past", "the week before last", *_week(today - 14 * day))
    monday = _monday(today)
    if today.weekday() < 5:  # said on a weekend day, "this weekend" and "last weekend" are each read two ways
        yield case("past", "last weekend", monday - 2 * day, monday - day)
        yield case("future", "this weekend", monday + 5 * day, monday + 6 * day)
    yield from (case("past", "last month", *_month(today, -1)), case("future", "next month", *_month(today, 1)))
    before, after = _month(today, -1), _month(today, 1)
    yield case("past", f"in {MONTHS[before[0].month - 1]}", *before)
    yield case("future", f"in {MONTHS[after[0].month - 1]}", *after)
    for i, name in enumerate(WEEKDAYS):
        if i == today.weekday():
            continue
        back, ahead = (today.weekday() - i) % 7, (i - today.weekday()) % 7
        gone, coming = today - back * day, today + ahead * day
        yield from (case("past", f"last {name}", gone), case("past", f"on {name}", gone), case("past", name, gone))
        yield from (case("past", f"{name} just gone", gone), case("past", f"the {name} before last", gone - 7 * day))
        yield from (case("future", f"on {name}", coming), case("future", name, coming))
        yield from (
            case("future", f"this coming {name}", coming),
            case("future", f"{name} after next", coming + 7 * day),
        )
        yield from (
            case("future", f"{name} week", coming + 7 * day),
            case("future", f"a week on {name}", coming + 7 * day),
        )
    month = MONTHS[today.month - 1]
    for n in (1, 3, 12, 22, 28):
        when = today.replace(day=n)
        if n < today.day:
            yield from (case("past", f"on the {_ordinal(n)}", when), case("past", f"on {month} {_ordinal(n)}", when))
            yield case("past", f"on {n} {month}", when)
        elif n > today.day:
            yield from (case("future", f"on the {_ordinal(n)}", when), case("future", f"on {month} {n}", when))
            yield case("future", f"on the {_ordinal(n)} of {month}", when)


def _chinese(today: date) -> Iterator[Case]:
    def case(tense: str, expression: str, first: date, last: date | None = None) -> Case:
        return Case(tense, expression, first, last or first)

    day = timedelta(days=1)
    for word, count in (("昨天", -1), ("前天", -2), ("大前天", -3), ("明天", 1), ("后天", 2), ("大后天", 3)):
        yield case("past" if count < 0 else "future", word, today + count * day)
    yield from (case("past", "昨晚", today - day), case("future", "今晚", today), case("future", "明早", today + day))
    for n in (2, 3, 5, 10):
        yield from (
            case("past", f"{ZH_NUMBERS[n]}天前", today - n * day),
            case("future", f"{ZH_NUMBERS[n]}天后", today + n * day),
        )
    for n in (2, 3):
        yield case("past", f"{ZH_NUMBERS[n]}个星期前", *_week(today - 7 * n * day))
        yield case("future", f"{ZH_NUMBERS[n]}周后", today + 7 * n * day)
    yield from (case("past", "上个月", *_month(today, -1)), case("future", "下个月", *_month(today, 1)))
    monday = _monday(today)
    yield from (
        case("past", "上周末", monday - 2 * day, monday - day),
        case("future", "下周末", monday + 12 * day, monday + 13 * day),
    )
    if today.weekday() < 5:
        yield case("future", "这周末", monday + 5 * day, monday + 6 * day)
    for i, name in enumerate(ZH_WEEKDAYS):
        for prefix, weeks, tense in (
            ("上", -1, "past"),
            ("下", 1, "future"),
            ("上上", -2, "past"),
            ("下下", 2, "future"),
        ):
            yield case(tense, f"{prefix}周{name}", monday + (7 * weeks + i) * day)
        for prefix, weeks, tense in (("上星期", -1, "past"), ("下礼拜", 1, "future")):
            yield case(tense, f"{prefix}{'天' if name == '日' else name}", monday + (7 * weeks + i) * day)
        if i < today.weekday():
            yield from (case("past", f"这周{name}", monday + i * day), case("past", f"周{name}", monday + i * day))
        elif i > today.weekday():
            yield from (case("future", f"这周{name}", monday + i * day), case("future", f"周{name}", monday + i * day))
    for n in (1, 3, 12, 22, 28):
        if n != today.day:
            yield case("past" if n < today.day else "future", f"{today.month}月{n}号", today.replace(day=n))


def _read(text: str, said: datetime) -> tuple[date, date] | None:
    memory = memory_from_message(Message(content=text, time_created=said), workspace_id="w", target="u")
    if memory.event_start is not None and memory.event_end is not None:
        return memory.event_start.date(), (memory.event_end - timedelta(seconds=1)).date()
    return None if memory.event_time is None else (memory.event_time.date(), memory.event_time.date())


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("said", SAID, ids=lambda said: f"{said:%a}")
def test_every_generated_expression_names_its_day(language: str, said: datetime) -> None:
    cases = list((_english if language == "en" else _chinese)(said.date()))
    wrong = []
    for case in cases:
        for template in TEMPLATES[(language, case.tense)]:
            text = template.format(e=case.expression)
            read = _read(text, said)
            if read is None or not (case.first <= read[0] and read[1] <= case.last):
                wrong.append(f"{text!r}: read {read}, want {case.first}..{case.last}")
    assert len(cases) > 60
    assert not wrong, f"{len(wrong)} of {len(cases) * 3} wrong, said {said:%a %d %b}:\n" + "\n".join(wrong[:20])
