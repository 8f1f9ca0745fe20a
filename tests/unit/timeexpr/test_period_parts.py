"""A part of a month, a year or a week narrows its range: "early June", "the end of the month", 四月中旬, 月底."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from flowmem.timeexpr import extract_all

NOW = datetime(2025, 3, 12, 10)  # a Wednesday


@pytest.mark.parametrize(
    ("text", "expression", "first", "last"),
    [
        ("He's moving out at the end of the month", "the end of the month", "2025-03-31", "2025-03-31"),
        ("at the end of next week", "the end of next week", "2025-03-23", "2025-03-23"),
        ("by the end of this week", "the end of this week", "2025-03-16", "2025-03-16"),
        ("by the end of the year", "the end of the year", "2025-12-01", "2025-12-31"),
        ("we fly out early June", "early June", "2025-06-01", "2025-06-10"),
        ("in late July", "late July", "2025-07-21", "2025-07-31"),
        ("the exam is mid-April", "mid-April", "2025-04-11", "2025-04-20"),
        ("at the beginning of May", "the beginning of May", "2025-05-01", "2025-05-10"),
        ("the start of next month", "the start of next month", "2025-04-01", "2025-04-10"),
        ("the middle of the week", "the middle of the week", "2025-03-12", "2025-03-14"),
        ("月底搬走", "月底", "2025-03-31", "2025-03-31"),
        ("下个月初去报到", "下个月初", "2025-04-01", "2025-04-10"),
        ("四月中旬出结果", "四月中旬", "2025-04-11", "2025-04-20"),
        # a verb after the month with no aspect word tells a plan: the coming December, as 十二月下旬放假
        ("12月下旬放假", "12月下旬", "2025-12-21", "2025-12-31"),
        ("去年底换的工作", "去年底", "2024-12-01", "2024-12-31"),
        ("五月底交房", "五月底", "2025-05-31", "2025-05-31"),
        ("年初的时候", "年初", "2025-01-01", "2025-04-30"),
    ],
)
def test_a_part_of_a_period(text: str, expression: str, first: str, last: str) -> None:
    [found] = [t for t in extract_all(text, NOW, lean="neutral") if t.expression == expression]
    assert found.start.date().isoformat() == first
    assert (found.end - timedelta(days=1)).date().isoformat() == last


@pytest.mark.parametrize("text", ["at the end of the day", "at the end of the meeting", "the end of the story"])
def test_no_part_without_a_period(text: str) -> None:
    assert extract_all(text, NOW) == []


def test_a_period_without_a_part_keeps_its_range() -> None:
    [found] = extract_all("五月份的时候", NOW)
    assert (found.start, found.end) == (datetime(2024, 5, 1), datetime(2024, 6, 1))
