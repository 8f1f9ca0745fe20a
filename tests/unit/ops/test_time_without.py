"""Issue 23 point 2, session 25: a time gone by without something ends it — "6 weeks without a cigarette", "haven't
had a migraine in two months", "no migraines for a month now", 三个月没抽烟了 — whatever the habit or condition is
called (smoking and drinking by any of their everyday words); not a thing merely not done yet ("haven't had lunch")
and not what is only named beside the time ("since the new tablets")."""

from __future__ import annotations

import pytest

from flowmem.scoring.change import read_changes
from tests.unit.ops.chat import status_after

ENDED = [
    ("I smoke maybe 5 a day", "6 weeks without a cigarette!!", "smoke"),
    ("my migraines are every week at the moment", "haven't had a migraine in two months since the new tablets", "week"),
    ("I drink a glass of wine most nights", "haven't had a drink in a month, feeling great", "wine"),
    ("我每天抽一包烟", "已经三个月没抽烟了", "一包烟"),
    ("my migraines are every week at the moment", "no migraines for two months now", "week"),
]
KEPT = [
    ("I love the new tablets I got", "haven't had a migraine in two months since the new tablets", "love"),
    ("I have porridge for breakfast", "haven't had lunch yet, starving", "porridge"),
    ("我每天去健身房", "今天没去健身房了，太累", "每天去"),  # a day, not a time gone by
]


@pytest.mark.parametrize(("old", "new", "words"), ENDED)
def test_a_time_gone_by_without_it_ends_it(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["expired"]


@pytest.mark.parametrize(("old", "new", "words"), KEPT)
def test_what_is_not_done_yet_or_only_named_beside_it_stays(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["valid"]


@pytest.mark.parametrize("text", ["no idea for ages", "no plans for the weekend", "haven't had lunch yet"])
def test_no_ending_is_read_where_nothing_has_been_gone_without(text: str) -> None:
    assert not [c for c in read_changes(text) if c.kind == "ended"]


def test_a_drink_that_is_not_alcohol_is_not_ended_by_going_without_alcohol() -> None:
    assert status_after("I drink coffee every morning", "a week without alcohol, feeling good", "coffee") == ["valid"]
    assert status_after("I like a beer on Fridays", "a month without alcohol now", "beer") == ["expired"]
