"""Issue 12's event-time cases through the command line: `flowmem ingest`, `store list --json`, `search --explain`.

Said-at dates are in 2025, where 28 March is a Friday (and so is 28 February: the weekday alone
cannot tell them apart, the direction has to).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.cli.test_cli import run_cli

MESSAGES = [
    # Monday 24 March 2025
    {"message_id": "m1", "role": "user", "name": "alice", "time_created": "2025-03-24T10:00:00",
     "content": "On Friday the 28th at 8 pm we are having dinner at Marco's."},
    # Wednesday 26 March 2025
    {"message_id": "m2", "role": "user", "name": "alice", "time_created": "2025-03-26T18:00:00",
     "content": "I give the talk on Saturday."},  # neutral wording: the nearer Saturday
]  # fmt: skip


@pytest.fixture
def ingested(capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str]) -> dict[str, dict[str, object]]:
    chat = tmp_path / "chat.jsonl"
    chat.write_text("".join(json.dumps(m) + "\n" for m in MESSAGES), encoding="utf-8")
    code, _, err = run_cli(capsys, "ingest", str(chat), "-u", "alice", *store)
    assert code == 0, err
    code, out, err = run_cli(capsys, "store", "list", "--json", *store)
    assert code == 0, err
    memories = [json.loads(line) for line in out.splitlines() if line.strip()]
    return {m["source"][0]: m for m in memories if m["memory_type"] == "conversation"}


def test_friday_the_28th_at_8_pm_said_on_march_24_is_march_28_at_20(ingested: dict[str, dict[str, object]]) -> None:
    dinner = ingested["m1"]
    assert (dinner["event_start"], dinner["event_end"]) == ("2025-03-28T20:00:00", "2025-03-28T21:00:00")
    assert (dinner["event_year"], dinner["event_month"], dinner["event_day"], dinner["event_hour"]) == (2025, 3, 28, 20)


def test_the_talk_on_saturday_said_on_a_wednesday_is_the_coming_saturday(
    ingested: dict[str, dict[str, object]],
) -> None:
    talk = ingested["m2"]
    assert (talk["event_start"], talk["event_end"]) == ("2025-03-29T00:00:00", "2025-03-30T00:00:00")


@pytest.mark.parametrize(
    "query",
    ["what's on Friday the 28th?", "what are we doing on Friday the 28th?"],
)
def test_the_question_on_friday_the_28th_asked_on_march_25_is_march_28(
    capsys: pytest.CaptureFixture[str], ingested: dict[str, dict[str, object]], store: list[str], query: str
) -> None:
    code, out, err = run_cli(capsys, "search", query, "-u", "alice", "--at", "2025-03-25T09:00", "--explain", *store)
    assert code == 0, err
    assert "→ 2025-03-28T00:00:00 … 2025-03-29T00:00:00 (day; year=2025, month=3, day=28" in out
    first = out.split("\n1. ", 1)[1].splitlines()
    assert "dinner at Marco's" in first[0]
    assert any("time_match   1.0000" in line for line in first)
