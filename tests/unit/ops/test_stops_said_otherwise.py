"""Issue 23 point 2, session 21: a stop said in other words — of late ("haven't been taking the vitamin D"), counted
since ("2 months smoke free"), of whoever comes round ("the cleaner doesn't come anymore"), a group left, therapy
finished, a couple no longer together, a pastime stopped in Chinese (最近不跑了) — expires what it ends, through the
default write path; said of someone else, it ends nothing of the user's."""

from __future__ import annotations

import pytest

from tests.unit.ops.chat import status_after

ENDED = [
    ("I take vitamin D every morning", "haven't been taking the vitamin D, ran out", "every morning"),
    ("I smoke about 10 a day", "2 months smoke free today", "10 a day"),
    ("we have a cleaner on Fridays", "the cleaner doesn't come anymore, we're doing it ourselves", "on Fridays"),
    ("I'm part of a book club that meets on Thursdays", "left the book club, didn't click with them", "Thursdays"),
    ("I'm seeing a therapist every Tuesday", "finished therapy last week, feeling good", "every Tuesday"),
    ("my boyfriend Jake is in the army", "jake and me aren't together anymore", "army"),
    ("我每天晚上跑步", "最近不跑了，膝盖疼", "每天晚上"),
]
KEPT = [
    ("I smoke about 10 a day", "my dad is 10 years smoke free, so proud of him", "10 a day"),
    ("we have a cleaner on Fridays", "the window cleaner doesn't come in winter", "on Fridays"),
    ("I'm in a book club that meets on Thursdays", "my friend Sue left the book club", "Thursdays"),
    ("我每天晚上跑步", "我老公最近不跑了", "每天晚上"),
    ("I see a therapist on Tuesdays", "my brother finished therapy last week", "on Tuesdays"),
    ("the cleaner comes on Fridays", "the gardener doesn't come anymore", "on Fridays"),
    ("I take vitamin D every morning", "haven't been taking the bus lately, cycling instead", "every morning"),
]


@pytest.mark.parametrize(("old", "new", "words"), ENDED)
def test_a_stop_said_otherwise_expires_what_it_ends(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["expired"]


@pytest.mark.parametrize(("old", "new", "words"), KEPT)
def test_someone_elses_stop_or_another_thing_ends_nothing(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["valid"]
