"""A plan moved to another day said relatively ("tomorrow", "brought forward", 提前到明天), as test_moved_plans.py moves
them to named days: the older statement of it still to come is expired, and the moving statement holds the new day
(contra_repeat_op → flowmem.scoring.supersede.moved_plan)."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest

from tests.unit.ops.chat import said


def _after(texts: list[tuple[str, str]], words: str) -> list[tuple[str, date | None]]:
    memories = asyncio.run(said(texts))
    return sorted(
        (m.status, m.event_time.date() if m.event_time else None) for m in memories if words in m.content.lower()
    )


@pytest.mark.parametrize(
    ("texts", "words", "expected"),
    [
        (  # a relative day: "tomorrow", said two days after "Tuesday week"
            [("2025-02-10T18:00:00", "the boiler man's coming Tuesday week"),
             ("2025-02-12T18:00:00", "boiler man rang, he's coming tomorrow instead")],
            "boiler",
            [("expired", date(2025, 2, 18)), ("valid", date(2025, 2, 13))],
        ),
        (  # brought forward
            [("2025-09-08T19:00:00", "Dad's hearing aid fitting is on the 19th"),
             ("2025-09-15T19:00:00", "Dad's fitting got brought forward to tomorrow")],
            "fitting",
            [("expired", date(2025, 9, 19)), ("valid", date(2025, 9, 16))],
        ),
        (  # 提前到明天
            [("2025-01-06T09:00:00", "我爸周三做胃镜"), ("2025-01-06T20:00:00", "医院打电话说胃镜提前到明天了")],
            "胃镜",
            [("expired", date(2025, 1, 8)), ("valid", date(2025, 1, 7))],
        ),
    ],
)  # fmt: skip
def test_a_moved_plan_ends_the_older_day(texts: list[tuple[str, str]], words: str, expected: object) -> None:
    assert _after(texts, words) == expected


def test_another_plan_or_one_already_past_is_left_alone() -> None:
    """A move of something else (the party) keeps the dentist; a plan whose day had passed when the move was said is
    history, not the plan moved."""
    texts = [("2025-03-03T09:00:00", "dentist on Thursday at 3"),
             ("2025-03-04T09:00:00", "we moved the party to Saturday instead")]  # fmt: skip
    assert _after(texts, "dentist") == [("valid", date(2025, 3, 6))]
    texts = [("2025-03-03T09:00:00", "had the dentist this morning"),
             ("2025-03-10T09:00:00", "the dentist moved my next check-up to the 20th")]  # fmt: skip
    assert _after(texts, "this morning") == [("valid", date(2025, 3, 3))]


def test_a_plan_now_on_another_day_or_called_off_ends_the_older_one() -> None:
    """ "now <day>" moves it; "postponed indefinitely" / "called off" ends it with no new day."""
    texts = [
        ("2025-12-01T12:00:00", "xmas do fri 12th"),
        ("2025-12-02T12:00:00", "xmas do now thurs 11th, venue messed up"),
    ]
    assert _after(texts, "xmas do") == [("expired", date(2025, 12, 12)), ("valid", date(2025, 12, 11))]
    texts = [("2025-10-13T09:00:00", "the quarterly review is on the 24th"),
             ("2025-10-15T09:00:00", "quarterly review postponed indefinitely, will let you know")]  # fmt: skip
    assert ("valid", date(2025, 10, 24)) not in _after(texts, "quarterly review")


@pytest.mark.parametrize(
    ("older", "newer", "words"),
    [
        ("dentist appointment on Thursday at 3", "the hygienist moved my cleaning to Friday", "dentist"),
        ("team lunch on Friday for Sam's birthday", "my birthday drinks are now on the 15th", "team lunch"),
        ("parents evening for Leo on Tuesday", "Ava's parents evening is now Wednesday", "leo"),
        ("mum's coming to stay on the 20th", "dad's visit is now the 22nd instead", "mum"),
        ("我周五去医院复查", "我妈的复查改到周四了", "我周五"),
        ("周六跟同事聚餐", "同事的婚礼改到周日了", "聚餐"),
    ],
)
def test_something_else_moved_ends_nothing(older: str, newer: str, words: str) -> None:
    """What moved is named by the moving words (the thing the verb moves, or what stands before it, and whose it is):
    every word of it must be in the older plan. Sharing one word (birthday, parents evening, 复查, 同事) is not enough
    — this session's first version of the rule expired all six."""
    texts = [("2025-03-03T09:00:00", older), ("2025-03-04T09:00:00", newer)]
    assert [status for status, _ in _after(texts, words)] == ["valid"]
