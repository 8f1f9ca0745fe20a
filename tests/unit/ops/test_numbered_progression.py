"""Issue 23 point 2, session 25: a label with another number is the same thing as it is now, with no word of change
("hardstuck gold 2", then "hit gold 3 finally"; "I teach year 5", then "this year they've given me year 2") — the
label names what changed, however the sentence around it is worded; a question, another label, or someone else's
number changes nothing. A correction said the same day may correct the label too ("its plat 1", of "gold 3")."""

from __future__ import annotations

import asyncio

import pytest

from tests.unit.ops.chat import said, status_after

ENDED = [
    ("valorant rn, hardstuck gold 2", "hit gold 3 finally!!", "gold 2"),
    ("I teach year 5 at Elm Park", "this year they've given me year 2, different vibe entirely", "year 5"),
    ("I'm on ward 7B at the Royal", "ward 4A from next month, nights", "ward 7B"),
]
KEPT = [
    ("I teach year 5 at Elm Park", "is it year 6 next year? no idea", "year 5"),  # a question
    ("my son Leo is in year 5", "my daughter Ava is in year 8", "year 5"),  # someone else's
    ("I'm on ward 7B at the Royal", "visited my nan in bay 4 today", "ward 7B"),  # another label
]


@pytest.mark.parametrize(("old", "new", "words"), ENDED)
def test_the_same_label_with_another_number_supersedes_the_old(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["expired"]


@pytest.mark.parametrize(("old", "new", "words"), KEPT)
def test_a_question_another_label_or_someone_elses_changes_nothing(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["valid"]


def test_a_correction_the_same_day_may_correct_the_label() -> None:
    memories = asyncio.run(
        said(
            [
                ("2025-07-28T18:00:00", "hit gold 3 finally!!"),
                ("2025-07-28T18:05:00", "wait no i misread the screen, its plat 1!! skipped a whole rank"),
            ]
        )
    )
    assert {m.content: m.status for m in memories if "gold 3" in m.content} == {"hit gold 3 finally!!": "expired"}
    assert any(m.status == "valid" and "plat 1" in m.content for m in memories)


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("fact number 0 about cats", "fact number 1 about dogs", "number 0"),  # one item of a series, then another
        ("took bus 42 to work", "bus 17 was late again", "bus 42"),
    ],
)
def test_another_item_of_a_series_is_not_the_same_thing_changed(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["valid"]


def test_another_flight_is_not_the_first_changed() -> None:
    assert status_after("flying out on flight 221 to Lisbon", "flight 409 back was delayed", "221") == ["valid"]
