"""A newcomer's chat through the real CLI on the embedded default (issue 23's must-show cases): `flowmem ingest`,
then `flowmem store list --json` and `flowmem search` in subprocesses, as a new user would run them.

Changed facts are expired however they are worded (a new employer without "I work at", "pescatarian now, not
vegetarian" without expiring the consistent fish), what was said without a first-person pronoun is kept, the same
activity on two days is two memories, a date is read from its own clause, and a file of someone else's messages
is refused with exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TURNS = [
    ("2025-02-20T19:02", "user", "priya", "I work as a product manager at Dell, been there four years"),
    ("2025-02-20T19:03", "assistant", "assistant", "Nice! What do you like about it?"),
    ("2025-03-01T10:15", "user", "priya", "I've been vegetarian for about six years"),
    ("2025-03-03T08:40", "user", "priya", "Yesterday I went climbing with Marcus"),
    ("2025-03-05T21:10", "user", "priya", "My sister Grace just got back from a double shift"),
    ("2025-03-05T21:11", "user", "priya", "She's a nurse"),
    ("2025-03-10T12:30", "user", "priya", "Thinking of starting to eat fish again, my doctor says I need more omega-3"),
    ("2025-03-15T18:00", "user", "priya", "Also I told my manager at Dell, my last day there is March 19"),
    ("2025-03-17T09:05", "user", "priya", "Yesterday I went climbing with Marcus"),
    ("2025-03-20T16:45", "user", "priya", "Dentist done, just a small filling"),
    ("2025-03-24T18:20", "user", "priya", "First day at Lumen Health done, everyone is so nice"),
    ("2025-04-02T13:00", "user", "priya", "I'm pescatarian now, not vegetarian"),
]


def _write(path: Path, turns: list[tuple[str, str, str, str]]) -> Path:
    lines = [
        json.dumps({"message_id": f"m{i}", "role": role, "name": name, "content": text, "time_created": when})
        for i, (when, role, name, text) in enumerate(turns)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _flowmem(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FLOWMEM_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "flowmem", *args], capture_output=True, text=True, env=env,
                          check=False, timeout=300)  # fmt: skip


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("newcomer")
    done = _flowmem(home, "ingest", str(_write(home / "chat.jsonl", TURNS)), "-u", "priya")
    assert done.returncode == 0, done.stderr
    return home


@pytest.fixture(scope="module")
def stored(home: Path) -> dict[str, list[dict[str, Any]]]:
    listed = _flowmem(home, "store", "list", "-u", "priya", "--json")
    assert listed.returncode == 0, listed.stderr
    by_text: dict[str, list[dict[str, Any]]] = {}
    for line in listed.stdout.splitlines():
        memory = json.loads(line)
        by_text.setdefault(memory["content"], []).append(memory)
    return by_text


def _one(stored: dict[str, list[dict[str, Any]]], text: str) -> dict[str, Any]:
    [memory] = stored[text]
    return memory


def _search(home: Path, query: str) -> list[str]:
    found = _flowmem(home, "search", query, "-u", "priya", "--at", "2025-04-05T10:00", "-k", "3", "--json")
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    return [m["content"] for m in (data["memories"] if isinstance(data, dict) else data)]


def test_the_old_employer_is_expired_by_the_new_one_with_a_clean_value(
    home: Path, stored: dict[str, list[dict[str, Any]]]
) -> None:
    dell = _one(stored, TURNS[0][3])
    lumen = _one(stored, TURNS[10][3])
    assert dell["status"] == "expired" and dell["metadata"]["superseded_by"] == lumen["memory_id"]
    assert lumen["status"] == "valid" and lumen["metadata"]["slots"]["employer"] == "lumen health"
    assert "Lumen Health" in _search(home, "where do I work?")[0]


def test_pescatarian_now_expires_vegetarian_and_keeps_the_fish(stored: dict[str, list[dict[str, Any]]]) -> None:
    assert _one(stored, TURNS[2][3])["status"] == "expired"
    assert _one(stored, TURNS[6][3])["status"] == "valid"  # eating fish again agrees with pescatarian
    assert _one(stored, TURNS[11][3])["status"] == "valid"


def test_what_was_said_without_a_first_person_pronoun_is_stored(
    home: Path, stored: dict[str, list[dict[str, Any]]]
) -> None:
    assert _one(stored, "Dentist done, just a small filling")["status"] == "valid"
    assert _one(stored, "She's a nurse")["status"] == "valid"
    assert "She's a nurse" in _search(home, "what does my sister do?")


def test_two_climbing_days_are_two_memories_the_later_first(
    home: Path, stored: dict[str, list[dict[str, Any]]]
) -> None:
    climbs = stored["Yesterday I went climbing with Marcus"]
    assert sorted(m["event_start"][:10] for m in climbs if m["status"] == "valid") == ["2025-03-02", "2025-03-16"]
    found = [text for text in _search(home, "climbing with Marcus") if "climbing" in text]
    assert len(found) == 2


def test_the_date_is_read_from_its_own_clause(stored: dict[str, list[dict[str, Any]]]) -> None:
    said = _one(stored, TURNS[7][3])  # "told" is past; "my last day there is March 19" is its own clause
    assert said["event_start"][:10] == "2025-03-19"


def test_a_file_of_someone_elses_messages_is_exit_2_with_the_names_it_holds(tmp_path: Path) -> None:
    other = _write(tmp_path / "other.jsonl", [(w, r, "sam" if r == "user" else n, t) for w, r, n, t in TURNS])
    refused = _flowmem(tmp_path, "ingest", str(other), "-u", "priya")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "'sam' (11)" in refused.stderr and "priya" in refused.stderr


def test_explain_shows_the_turn_behind_a_memory_and_what_a_change_derived(tmp_path: Path) -> None:
    turns = [
        ("2025-03-03T09:00", "user", "priya", "Choir practice is Mondays at 7pm in the church hall"),
        ("2025-03-10T09:00", "user", "priya", "they moved choir practice to Wednesdays"),
    ]
    assert _flowmem(tmp_path, "ingest", str(_write(tmp_path / "c.jsonl", turns)), "-u", "priya").returncode == 0
    explained = _flowmem(tmp_path, "search", "when is choir practice?", "-u", "priya", "-k", "3", "--explain")
    assert explained.returncode == 0, explained.stderr
    lines = explained.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "Choir practice is Wednesdays at 7pm in the church hall" in line)
    link = lines[at + 2]  # the line after "id … · conversation"
    assert "said in m0, m1" in link and "derived from " in link and "changed by " in link


def test_a_turn_that_says_she_is_keyed_with_the_name_it_stands_for(stored: dict[str, list[dict[str, Any]]]) -> None:
    # "She's a nurse" names no one; the sister named in the turn before is in its key (flowmem.scoring.referents)
    nurse = _one(stored, "She's a nurse")
    assert nurse["metadata"]["refers_to"] == ["Grace"] and "Grace" in nurse["expanded_key"]
