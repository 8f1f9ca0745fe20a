"""Issue 23 points 2 and 4: a plan moved to a new time ("pushed to next Wednesday", "postponed the housewarming to the
21st", 推迟到7月1号) expires the old time and keeps the new one — the date the moving statement gives, read from its
own words, not the day the plan was first made nor the past tense of the verb that moved it."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from flowmem.schema.memory import Memory
from flowmem.scoring.derive import event_time
from flowmem.scoring.facts import split_facts
from tests.unit.ops.chat import said


def _dates(memories: list[Memory], word: str, status: str) -> set[str]:
    return {
        m.event_time.date().isoformat() if m.event_time else "none"
        for m in memories
        if m.status == status and word in m.content.lower()
    }


CASES = [
    # (said, the plan's word, the old date, the new date)
    (
        [
            ("2025-06-02T09:00", "haircut on Saturday with Dee"),
            ("2025-06-05T09:00", "Dee is ill so haircut pushed to next Wednesday"),
        ],
        "haircut",
        "2025-06-07",
        "2025-06-11",
    ),
    (
        [
            ("2025-06-02T09:00", "the housewarming is on the 14th"),
            ("2025-06-03T09:00", "we've postponed the housewarming to the 21st, too much to unpack"),
        ],
        "housewarming",
        "2025-06-14",
        "2025-06-21",
    ),
    (
        [
            ("2025-06-02T09:00", "physio booked for Thursday at 4"),
            ("2025-06-04T09:00", "physio cancelled Thursday, they moved me to Monday"),
        ],
        "physio",
        "2025-06-05",
        "2025-06-09",
    ),
    (
        [("2025-06-02T09:00", "6月20号搬家"), ("2025-06-06T09:00", "搬家推迟到7月1号了")],
        "搬家",
        "2025-06-20",
        "2025-07-01",
    ),
]


@pytest.mark.parametrize(("chat", "word", "old", "new"), CASES, ids=[c[1] for c in CASES])
def test_a_moved_plan_keeps_its_new_date_only(chat: list[tuple[str, str]], word: str, old: str, new: str) -> None:
    memories = asyncio.run(said(chat))
    assert _dates(memories, word, "expired") == {old}
    assert _dates(memories, word, "valid") == {new}


def test_the_time_moved_to_is_the_events_date_and_stays_with_what_was_moved() -> None:
    monday = datetime(2025, 6, 4, 9)  # a Wednesday
    text = "physio cancelled Thursday, they moved me to Monday"
    assert split_facts(text) == [text]  # "they" is the physio: one fact, not a Monday of nothing
    when = event_time(text, monday)
    assert when is not None and when.start == datetime(2025, 6, 9)
    # A piece naming its own plan is its own fact; a move to a place is no move of a time.
    assert len(split_facts("Dinner with Sam is on Friday, and the dentist got moved to Monday")) == 2
    moved = event_time("we moved to Denver on Friday", monday)
    assert moved is not None and moved.start == datetime(2025, 5, 30)  # the Friday before: a move, told in the past


def test_a_weekly_day_moved_takes_no_one_date() -> None:
    memories = asyncio.run(
        said(
            [
                ("2025-01-13T09:00", "I run the design review every Monday at 10 with the platform team"),
                ("2025-02-19T09:00", "we moved the design review from Mondays to Wednesdays"),
            ]
        )
    )
    [now] = [m for m in memories if m.status == "valid" and "every wednesday" in m.content.lower()]
    assert now.event_time is None or now.event_time.date() < datetime(2025, 2, 1).date()
