"""Issue 23 point 2: the facts of the user's people change like the user's own ("my sister is a nurse" → …), through
the default write path: a person's new home expires their old one, keeps what else was said with it, and never
touches the user's own home or another person's."""

from __future__ import annotations

import asyncio

from flowmem.schema.memory import Memory
from tests.unit.ops.chat import said


def _status(memories: list[Memory], *words: str) -> list[str]:
    return [m.status for m in memories if all(w.lower() in m.content.lower() for w in words)]


SAID = [
    ("2025-03-30T18:00:00", "I live in Leeds, ten minutes from the station"),
    ("2025-03-30T18:05:00", "Visited Nana at her house in Whitby today, she still does her own gardening"),
    ("2025-04-02T09:00:00", "My mum lives in Cork"),
    ("2025-09-10T20:00:00", "Nana moved into Rosehill, the assisted living place, last Sunday."),
]


def test_a_persons_new_home_expires_the_old_and_keeps_the_visit() -> None:
    memories = asyncio.run(said(SAID))
    assert _status(memories, "whitby") == ["expired"]  # the old home of Nana's
    [visit] = [m for m in memories if m.status == "valid" and "visited nana" in m.content.lower()]
    assert "whitby" not in visit.content.lower() and "gardening" in visit.content  # what else was said stays
    assert visit.event_time is not None and visit.event_time.date().isoformat() == "2025-03-30"
    assert _status(memories, "rosehill") == ["valid"]
    assert _status(memories, "leeds") == ["valid"]  # the user's home: someone else's move is not the user's
    assert _status(memories, "cork") == ["valid"]  # another person's home
    [rosehill] = [m for m in memories if "rosehill" in m.content.lower()]
    assert rosehill.metadata["slots"] == {"residence@nana": "rosehill"}
