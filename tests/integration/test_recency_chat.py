"""Issue 23 point 3 through the real CLI on the embedded default: `flowmem ingest`, then `flowmem store list --json`
and `flowmem search` in subprocesses. "when did I last go hiking?" answers the latest hiking day first and "when
did I first …" the earliest, not the memory that merely says "last" ("my last day there is March 19"); the same
activity told on two days without a date stays two memories."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_newcomer_chat import _flowmem, _write

TURNS = [
    ("2025-01-12T18:00", "Went hiking up Mount Tam today, the views were amazing"),
    ("2025-01-20T09:00", "I work as a product manager at Dell"),
    ("2025-02-01T12:00", "Had ramen with Marcus downtown"),
    ("2025-02-14T19:30", "Went hiking on the Dipsea trail this morning, my legs are dead"),
    ("2025-03-01T18:00", "Went to the climbing gym with Marcus"),
    ("2025-03-08T18:00", "Went to the climbing gym with Marcus"),
    ("2025-03-15T18:00", "Also I told my manager at Dell, my last day there is March 19"),
    ("2025-03-22T20:00", "We went hiking at Point Reyes today with the dog"),
    ("2025-03-28T08:00", "Last night I watched a movie with Marcus"),
    ("2025-03-29T09:00", "今天去献血了 400cc 送了个保温杯"),
    ("2025-03-30T09:00", "又去献血了 这次献的血小板"),
]
AT = "2025-04-05T10:00"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("recency")
    chat = _write(home / "chat.jsonl", [(when, "user", "priya", text) for when, text in TURNS])
    done = _flowmem(home, "ingest", str(chat), "-u", "priya")
    assert done.returncode == 0, done.stderr
    return home


def _search(home: Path, query: str, *extra: str) -> subprocess.CompletedProcess[str]:
    found = _flowmem(home, "search", query, "-u", "priya", "--at", AT, "-k", "3", *extra)
    assert found.returncode == 0, found.stderr
    return found


def _first(home: Path, query: str) -> str:
    data: Any = json.loads(_search(home, query, "--json").stdout)
    return str((data["memories"] if isinstance(data, dict) else data)[0]["content"])


def test_when_did_i_last_finds_the_latest_and_first_the_earliest(home: Path) -> None:
    assert _first(home, "when did I last go hiking?") == TURNS[7][1]  # 22 March, not "my last day there"
    assert _first(home, "the last time I went hiking?") == TURNS[7][1]
    assert _first(home, "when did I first go hiking?") == TURNS[0][1]  # 12 January
    assert _first(home, "我上次献血是什么时候？") == TURNS[10][1]


def test_explain_says_the_recency_order_reordered(home: Path) -> None:
    text = _search(home, "when did I last go hiking?", "--explain").stdout
    assert "recency: 'last' asks for the latest: fuse_rerank_op put the" in text
    assert "recency_rank   1.0000   by fuse_rerank_op (latest first by event time" in text


def test_the_same_activity_told_on_two_days_without_a_date_is_two_memories(home: Path) -> None:
    listed = _flowmem(home, "store", "list", "-u", "priya", "--json")
    assert listed.returncode == 0, listed.stderr
    gym = [json.loads(line) for line in listed.stdout.splitlines() if "climbing gym" in line]
    assert sorted((m["status"], m["source"][0], m["event_start"][:10]) for m in gym) == [
        ("valid", "m4", "2025-03-01"),
        ("valid", "m5", "2025-03-08"),
    ]
