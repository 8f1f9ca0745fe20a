"""Two users in one workspace, both sending ``m1``: neither user's chat may be dropped or overwritten.

A message is identified by (workspace, user, message id): the ledger of memorized messages and
the ids of memories derived from messages include the user, through the CLI and the Python API.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from flowmem import App
from flowmem.core.errors import BackendUnavailableError
from flowmem.schema.memory import Memory
from flowmem.scoring.facts import split_facts
from flowmem.vector_store.local import db as local_db
from tests.unit.cli.test_cli import run_cli

T0 = datetime(2024, 5, 6, 9, 0)
ALICE = [("m1", "I live in Paris and I work as a nurse at the city hospital."),
         ("m2", "I adopted a grey cat called Mochi last spring.")]  # fmt: skip
BOB = [("m1", "My salary is 250k and I live in Denver with my two kids.")]


def facts(lines: list[tuple[str, str]]) -> set[str]:
    """The memories a chat makes offline: one per fact of each message."""
    return {fact for _, text in lines for fact in split_facts(text)}


def chat(user: str, lines: list[tuple[str, str]]) -> list[dict[str, Any]]:
    return [
        {"message_id": mid, "role": "user", "name": user, "content": text,
         "time_created": (T0 + timedelta(minutes=i)).isoformat()}
        for i, (mid, text) in enumerate(lines)
    ]  # fmt: skip


def write_chat(path: Path, user: str, lines: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in chat(user, lines)))
    return path


def memories_of(app: App, workspace: str) -> list[Memory]:
    async def collect() -> list[Memory]:
        return [m async for batch in app.vector_store().iterate(workspace) for m in batch]

    return app.run_coroutine(collect())


def by_user(memories: list[Memory]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for m in memories:
        found.setdefault(m.target, set()).add(m.content)
    return found


def ingest(capsys: pytest.CaptureFixture[str], path: Path, user: str, *overrides: str) -> str:
    code, _, err = run_cli(capsys, "ingest", str(path), "-u", user, "-w", "shared", *overrides)
    assert code == 0, err
    return next(line for line in err.strip().splitlines() if not line.startswith("["))  # the counts, after progress


def test_cli_ingest_of_two_users_with_the_same_message_ids_keeps_both(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLOWMEM_HOME", str(tmp_path / "home"))  # the default `local` store
    a, b = write_chat(tmp_path / "a.jsonl", "alice", ALICE), write_chat(tmp_path / "b.jsonl", "bob", BOB)
    assert "messages 2" in ingest(capsys, a, "alice")
    summary = ingest(capsys, b, "bob")
    assert summary == f"add {len(facts(BOB))}, messages 1, messages already memorized 0"
    with App() as app:
        stored = by_user(memories_of(app, "shared"))
    assert stored == {"alice": facts(ALICE), "bob": facts(BOB)}
    assert ingest(capsys, a, "alice") == "messages already memorized 2"  # re-running either adds nothing
    assert ingest(capsys, b, "bob") == "messages already memorized 1"
    with App() as app:
        assert by_user(memories_of(app, "shared")) == stored


@pytest.mark.parametrize("backend", ["memory", "local"])
def test_python_api_two_users_same_message_id(backend: str, tmp_path: Path) -> None:
    overrides = [f"vector_store.default.backend={backend}"]
    if backend == "local":
        overrides.append(f"vector_store.default.params.directory={tmp_path}")
    with App(overrides=overrides) as app:
        first = app.run_sync("personal_summary", messages=chat("alice", ALICE[:1]), user_id="alice",
                             workspace_id="shared")  # fmt: skip
        second = app.run_sync("personal_summary", messages=chat("bob", BOB), user_id="bob", workspace_id="shared")
        assert f"added {len(facts(ALICE[:1]))}" in first.answer and f"added {len(facts(BOB))}" in second.answer
        stored = memories_of(app, "shared")
        assert by_user(stored) == {"alice": facts(ALICE[:1]), "bob": facts(BOB)}  # Bob's m1 did not overwrite Alice's
        assert len({m.memory_id for m in stored}) == len(facts(ALICE[:1])) + len(facts(BOB))
        store = app.vector_store()
        assert app.run_coroutine(store.memorized("shared", "alice", ["m1"])) == {"m1"}
        assert app.run_coroutine(store.memorized("shared", "bob", ["m1", "m2"])) == {"m1"}


# The local store's schema 1, as flowmem wrote it before the ledger was per user.
V1_MESSAGES = """
CREATE TABLE messages (
    workspace_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    memorized_at TEXT NOT NULL,
    PRIMARY KEY (workspace_id, message_id)
)
"""


def downgrade_to_schema_1(directory: Path, extra_ledger: list[tuple[str, str]]) -> None:
    """Turn a store file into what flowmem wrote at schema 1: one ledger row per (workspace, message)."""
    conn = sqlite3.connect(directory / local_db.FILE_NAME, isolation_level=None)
    rows = conn.execute("SELECT DISTINCT workspace_id, message_id, memorized_at FROM messages").fetchall()
    conn.execute("BEGIN")
    conn.execute("DROP TABLE messages")
    conn.execute(V1_MESSAGES)
    conn.executemany("INSERT OR IGNORE INTO messages VALUES (?, ?, ?)", rows)
    conn.executemany("INSERT INTO messages VALUES (?, ?, '2024-05-01T00:00:00')", extra_ledger)
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    conn.execute("COMMIT")
    conn.close()


def test_a_schema_1_local_store_is_migrated_and_keeps_skipping_memorized_messages(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("FLOWMEM_HOME", str(home))
    # m3: no memory comes of it (noise, left out at offline_score_threshold 1; the shipped 0 keeps it as a record)
    a = write_chat(tmp_path / "a.jsonl", "alice", [*ALICE, ("m3", "ok thanks")])
    noise = "op.info_filter_op.params.offline_score_threshold=1"
    gone = write_chat(tmp_path / "c.jsonl", "carol", [("c1", "I am allergic to peanuts and shellfish.")])
    assert "messages 3" in ingest(capsys, a, "alice", noise)
    assert "messages 1" in ingest(capsys, gone, "carol")
    code, out, err = run_cli(capsys, "store", "delete", "-w", "shared", "--source-message", "c1", "-u", "carol")
    assert code == 0 and "deleted 1 of 1" in out, err
    downgrade_to_schema_1(home, [("shared", "orphan")])

    with App() as app:  # opening migrates
        store = app.vector_store()
        assert app.run_coroutine(store.memorized("shared", "alice", ["m1", "m2", "m3"])) == {"m1", "m2"}
        assert app.run_coroutine(store.memorized("shared", "carol", ["c1"])) == {"c1"}  # from the delete event
        assert app.run_coroutine(store.memorized("shared", "bob", ["m1", "orphan"])) == set()
    conn = sqlite3.connect(home / local_db.FILE_NAME)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (local_db.SCHEMA_VERSION,)
    ledger = set(conn.execute("SELECT workspace_id, user_id, message_id FROM messages"))
    conn.close()
    assert ledger == {("shared", "alice", "m1"), ("shared", "alice", "m2"), ("shared", "carol", "c1")}

    # m3 and the orphan named no memory: dropped, so m3 is processed again (and filtered again)
    assert ingest(capsys, a, "alice", noise) == "messages 1, messages already memorized 2"
    assert ingest(capsys, gone, "carol") == "messages already memorized 1"  # a deleted memory stays deleted
    b = write_chat(tmp_path / "b.jsonl", "bob", BOB)
    assert f"add {len(facts(BOB))}" in ingest(capsys, b, "bob")
    with App() as app:
        assert by_user(memories_of(app, "shared")) == {"alice": facts(ALICE), "bob": facts(BOB)}


def test_a_store_of_an_unknown_schema_is_refused(tmp_path: Path) -> None:
    with App(overrides=[f"vector_store.default.params.directory={tmp_path}"]) as app:
        app.run_coroutine(app.vector_store().count("w"))
    conn = sqlite3.connect(tmp_path / local_db.FILE_NAME, isolation_level=None)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    conn.close()
    app = App(overrides=[f"vector_store.default.params.directory={tmp_path}"])
    with app, pytest.raises(BackendUnavailableError, match="schema 99"):
        app.run_coroutine(app.vector_store().count("w"))
