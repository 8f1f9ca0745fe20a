"""Issue 23 point 2, session 25: a title opening a clause, at a named place ("associate at Hartley & Boyd from
Monday", "barista at Costa now") is a job said of the speaker, so it replaces the older title — written in with its
article ("an associate"); said of someone else, or merely a person met ("I met a nurse at St Mary's"), it is not."""

from __future__ import annotations

import asyncio

import pytest

from flowmem.scoring.values import find_values
from tests.unit.ops.chat import said, status_after


def test_a_title_at_a_named_place_replaces_the_older_title() -> None:
    memories = asyncio.run(
        said(
            [
                ("2025-03-03T09:00:00", "I'm a paralegal at Hartley & Boyd"),
                ("2025-06-02T09:00:00", "just passed the bar!! associate at Hartley & Boyd from Monday"),
            ]
        )
    )
    status = {m.content: m.status for m in memories}
    assert status["I'm a paralegal at Hartley & Boyd"] == "expired"
    assert status["I'm an associate at Hartley & Boyd"] == "valid"


def test_someone_elses_title_at_a_place_leaves_mine() -> None:
    assert status_after("I'm a nurse at the Royal", "my sister, nurse at St Mary's now", "Royal") == ["valid"]


@pytest.mark.parametrize(
    ("text", "job"),
    [
        ("just passed the bar!! associate at Hartley & Boyd from Monday", "associate"),
        ("Barista at Costa from June", "barista"),
        ("I met a nurse at St Mary's", None),  # a person met, not a title said
        ("nurse at the end of the ward", None),  # no named place
    ],
)
def test_a_title_opening_a_clause_at_a_named_place_is_a_job(text: str, job: str | None) -> None:
    assert next((v.norm for v in find_values(text) if v.kind == "job"), None) == job
