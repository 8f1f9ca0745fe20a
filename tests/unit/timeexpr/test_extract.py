from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from flowmem.timeexpr import ExtractedTime, extract_all, extract_time, has_time_words
from tests.unit.timeexpr.cases import ALL_CASES, EN_CASES, OTHER_CASES, WED, ZH_CASES, Case, as_expected


@pytest.mark.parametrize("case", ALL_CASES, ids=[case.id for case in ALL_CASES])
def test_table(case: Case) -> None:
    assert as_expected(extract_time(case.query, case.now)) == case.expected


def test_table_accuracy(capsys: pytest.CaptureFixture[str]) -> None:
    lines, right_total = [], 0
    for name, cases in (("en", EN_CASES), ("zh", ZH_CASES), ("other", OTHER_CASES)):
        right = sum(as_expected(extract_time(case.query, case.now)) == case.expected for case in cases)
        right_total += right
        lines.append(f"{name} {right}/{len(cases)}")
    share = right_total / len(ALL_CASES)
    with capsys.disabled():
        print(f"\ntimeexpr table: {', '.join(lines)}; overall {right_total}/{len(ALL_CASES)} = {share:.1%}")
    assert len(EN_CASES) >= 60 and len(ZH_CASES) >= 60
    assert share >= 0.9


@pytest.mark.parametrize("case", ALL_CASES, ids=[case.id for case in ALL_CASES])
def test_the_gate_lets_every_table_query_through(case: Case) -> None:
    assert has_time_words(case.query)


NO_TIME = [
    "what is my favourite food?",
    "who is my best friend?",
    "what did I say about the project?",
    "recommend a book for me",
    "我喜欢什么颜色",
    "我最喜欢的食物是什么",
    "我的猫叫什么名字",
    "帮我总结一下这个项目",
]


@pytest.mark.parametrize("query", NO_TIME)
def test_queries_without_time_words_find_nothing_and_fail_the_gate(query: str) -> None:
    assert not has_time_words(query)
    assert extract_time(query, WED) is None
    assert extract_all(query, WED) == []


LOOKALIKES = [
    "May I ask what you like?",
    "I may go to the gym",
    "I fall asleep easily",
    "let's march on",
    "I sat on the sun lounger",
    "I work on Fridays",
    "good morning",
    "the 5th time I tried",
    "she came the 2nd fastest",
    "on 2nd thought, no",  # an ordinal with its noun after it is no day of the month
    "I'm 25 years old",
    "a few days ago",
    "dropping the Monday swim",  # a thing named by the weekday it recurs on
    "my Tuesday class is cancelled",
    "in the past week",
    "三号楼在哪里",
    "五号线怎么走",
    "一周三次健身",
    "我每周三去游泳",
    "外婆每天早上打太极",  # habits: a part of the day, an hour or a weekend after a word of recurrence
    "天天晚上加班",
    "每个周末都去爬山",
    "每周三下午三点开会",
    "差一点就赢了",
    "有三点建议",
    "一时半会儿说不清",
    "这周围有什么好吃的",
    "以前天气很好",
    "之后天天下雨",
    "一个月",
    "前几天",
    "do I still live on the first floor?",  # a spelt-out ordinal with a noun after it is a rank, not a day
    "who did I sit next to on the third day of the course?",
    "what did I think of the sat nav?",  # an abbreviated weekday needs a part of the day after it, or "on"
]


@pytest.mark.parametrize("query", LOOKALIKES)
def test_words_that_only_look_like_times_find_nothing(query: str) -> None:
    assert extract_time(query, WED) is None


def test_extract_all_returns_every_expression_in_text_order() -> None:
    found = extract_all("I met Bob yesterday and will see him again next Friday at 3pm.", WED)
    assert [item.expression for item in found] == ["yesterday", "next Friday at 3pm"]
    assert [(item.granularity, item.start) for item in found] == [
        ("day", datetime(2024, 5, 14)),
        ("hour", datetime(2024, 5, 17, 15)),
    ]
    found_zh = extract_all("昨天我见了小王，下周五下午还要再见一次", WED)
    assert [item.expression for item in found_zh] == ["昨天", "下周五下午"]
    assert [(item.start, item.end) for item in found_zh] == [
        (datetime(2024, 5, 14), datetime(2024, 5, 15)),
        (datetime(2024, 5, 24, 12), datetime(2024, 5, 24, 18)),
    ]


def test_extract_time_returns_the_first_expression() -> None:
    found = extract_time("what did I do last week and the week before last?", WED)
    assert found is not None and found.expression == "last week"


@pytest.mark.parametrize(
    ("query", "expression"),
    [
        ("where was I in March?", "in March"),
        ("what did I do over the weekend?", "over the weekend"),
        ("what did I do on Friday last week?", "on Friday last week"),
        ("what did I do at 3pm yesterday?", "at 3pm yesterday"),
        ("昨天下午三点我在干什么", "昨天下午三点"),
        ("去年的冬天冷吗", "去年的冬天"),
    ],
)
def test_the_expression_is_the_whole_phrase(query: str, expression: str) -> None:
    found = extract_time(query, WED)
    assert found is not None and found.expression == expression


def test_language_restricts_the_rules() -> None:
    assert extract_time("上周三我吃了什么", WED, "en") is None
    assert extract_time("what did I do last week?", WED, "zh") is None
    # Numbers are shared: an ISO date is found in either language.
    assert extract_time("2023-05-05", WED, "zh") is not None
    assert extract_time("上周三我吃了什么", WED, "zh") == extract_time("上周三我吃了什么", WED)


def test_full_width_digits_are_read_and_the_expression_is_the_original_text() -> None:
    text = "２０２３年５月５日下午３点"
    found = extract_time(text, WED)
    assert found is not None
    assert (found.start, found.granularity, found.expression) == (datetime(2023, 5, 5, 15), "hour", text)


def test_an_aware_reference_time_keeps_its_wall_clock() -> None:
    now = datetime(2024, 5, 15, 23, 30, tzinfo=timezone(timedelta(hours=8)))
    found = extract_time("what did I do yesterday?", now)
    assert found is not None and found.start == datetime(2024, 5, 14)


def test_numeric_dates_the_rules_do_not_read_go_to_dateparser() -> None:
    found = extract_time("what did I do on 05/06/2023?", WED)
    assert found is not None
    assert (found.granularity, found.start, found.expression) == ("day", datetime(2023, 5, 6), "05/06/2023")


def test_invalid_dates_are_not_extracted() -> None:
    assert extract_time("what happened on 2023-02-30?", WED) is None
    assert extract_time("2月30日我在哪", WED) is None


def test_to_dict_flattens_the_parts() -> None:
    found = extract_time("上周末我做了什么", WED)
    assert found is not None
    assert found.to_dict() == {
        "year": 2024,
        "week": 19,
        "start": "2024-05-11T00:00:00",
        "end": "2024-05-13T00:00:00",
        "expression": "上周末",
        "granularity": "weekend",
        "source": "rules",
    }


def test_the_model_is_frozen_and_checks_its_range() -> None:
    found = extract_time("yesterday", WED)
    assert found is not None
    with pytest.raises(ValidationError):
        found.expression = "x"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        ExtractedTime(parts={}, start=WED, end=WED, expression="", granularity="day")
    with pytest.raises(ValidationError):
        ExtractedTime(parts={}, start=WED, end=WED + timedelta(1), expression="", granularity="day", extra=1)  # type: ignore[call-arg]


@pytest.mark.parametrize("text", ["rated it 4/5", "add 1/2 a cup of milk", "scored 8/10 on the quiz", "加1/2杯牛奶"])
def test_a_fraction_or_a_score_is_no_date(text: str) -> None:
    assert extract_time(text, WED, lean="neutral") is None
