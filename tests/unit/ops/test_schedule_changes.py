"""Issue 23 point 2, session 21: a schedule changed in other words — which one of the month's weekdays ("the first
Sunday" → "the last Sunday") — expires the older statement, through the default write path."""

from __future__ import annotations

import asyncio

import pytest

from flowmem.scoring.values import find_values
from tests.unit.ops.chat import said
from tests.unit.ops.test_people_slots import _status


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("book club is the first Sunday of the month", "book club is now the last sunday of the month", "first Sunday"),
    ],
)
def test_a_schedule_said_again_with_another_day_expires_the_old(old: str, new: str, words: str) -> None:
    memories = asyncio.run(said([("2025-02-03T09:00:00", old), ("2025-02-10T09:00:00", new)]))
    assert _status(memories, words) == ["expired"]


def test_which_weekday_of_the_month_and_a_shifts_hours_are_values() -> None:
    assert [(v.kind, v.norm) for v in find_values("the first Sunday of the month")] == [("weekday", "first:6")]
    assert [(v.kind, v.norm) for v in find_values("every Sunday")] == [("weekday", "6")]
    assert [(v.kind, v.norm) for v in find_values("my shifts are 7-3")] == [("clock", "7:00-3:00")]
    assert [v.kind for v in find_values("we won 3-1 on Sunday")] == ["weekday"]
