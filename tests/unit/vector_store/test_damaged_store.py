"""A damaged `local` store file: every command names the file and what to do, exits 2, and never writes to it."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from flowmem.core.errors import StoreDamagedError
from flowmem.testing.conformance import memory
from flowmem.vector_store.local import db as local_db
from flowmem.vector_store.local.store import LocalStore
from tests.unit.cli.test_cli import run_cli


def overrides(directory: Path) -> list[str]:
    return [
        "vector_store.default.backend=local",
        f"vector_store.default.params.directory={directory}",
        "embedding_model.default.backend=hash",
    ]


@pytest.fixture(scope="module")
def sound_store(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The bytes of a sound store holding the 94 sample memories (made once: imports are slow-ish)."""
    directory = tmp_path_factory.mktemp("sound")
    code = run_cli_plain("store", "import", "--sample", "-w", "demo", *overrides(directory))
    assert code == 0
    return (directory / local_db.FILE_NAME).read_bytes()


def run_cli_plain(*argv: str) -> int:
    from flowmem.cli.main import main

    return main(list(argv))


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:100])  # `truncate -s 100`


def truncate_half(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def empty(path: Path) -> None:
    path.write_bytes(b"")


def random_bytes(path: Path) -> None:
    path.write_bytes(os.urandom(5000))


def drop(*tables: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        conn = sqlite3.connect(path)
        for table in tables:
            conn.execute(f"DROP TABLE {table}")
        conn.commit()
        conn.close()

    damage.__name__ = f"drop_{'_'.join(tables)}"
    return damage


def drop_index(name: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        conn = sqlite3.connect(path)
        conn.execute(f"DROP INDEX {name}")
        conn.commit()
        conn.close()

    return damage


def drop_everything(path: Path) -> None:
    conn = sqlite3.connect(path)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
        conn.execute(f"DROP TABLE IF EXISTS {name}")  # dropping an FTS5 table drops its shadow tables too
    conn.commit()
    conn.close()


def bad_memories_page(path: Path) -> None:
    """The header, schema and meta are fine; the memories table's root page is garbage (found on reading)."""
    conn = sqlite3.connect(path)
    [(root,)] = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'memories'").fetchall()
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with path.open("r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xff" * page_size)


DAMAGE = {
    "truncated to 100 bytes": (truncate, "it is truncated: 100 bytes"),
    "truncated to half": (truncate_half, "it is truncated"),
    "zero bytes": (empty, "it is empty (0 bytes)"),
    "random bytes": (random_bytes, "it is not an SQLite database"),
    "history dropped": (drop("history"), "table history missing"),
    "two tables dropped": (drop("tombstones", "messages"), "tables tombstones, messages missing"),
    "every table dropped": (drop_everything, "tables meta, memories, tombstones, history, messages missing"),
    "unique index dropped": (drop_index("memories_key"), "index memories_key missing"),
    "memories page garbage": (bad_memories_page, "SQLite says: database disk image is malformed"),
}

COMMANDS = [
    ("store", "stats"),
    ("store", "list", "-w", "demo", "--limit", "0"),
    ("store", "get", "-w", "demo", "alice-0001"),
    ("store", "delete", "-w", "demo", "alice-0001"),
    ("store", "history", "-w", "demo"),
    ("store", "export", "-w", "demo"),
    ("store", "import", "--sample", "-w", "demo"),
    ("ingest", "--memories", "-w", "demo", "FILE"),
]


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_every_command_names_the_damaged_file_and_leaves_it_alone(
    kind: str, sound_store: bytes, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    directory = tmp_path / "store"
    directory.mkdir()
    path = directory / local_db.FILE_NAME
    path.write_bytes(sound_store)
    damage, what = DAMAGE[kind]
    damage(path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    sample = tmp_path / "one.jsonl"
    sample.write_text('{"memory_id": "x1", "workspace_id": "demo", "content": "Alice likes tea"}\n')
    for command in COMMANDS:
        argv = [str(sample) if token == "FILE" else token for token in command]
        code, _, err = run_cli(capsys, *argv, *overrides(directory))
        if kind == "memories page garbage" and command[1] in ("stats", "history"):
            # Found only by reading the damaged page, which these commands do not read: they may succeed.
            assert code in (0, 2) and "Traceback" not in err, (command, err)
            assert hashlib.sha256(path.read_bytes()).hexdigest() == before
            continue
        assert code == 2, (command, err)
        assert "Traceback" not in err and "sqlite3." not in err, (command, err)
        assert f"the local store file {path} is damaged: {what}" in err, (command, err)
        assert "flowmem store check" in err and "restore the file from a backup" in err
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before, f"{command} wrote into the damaged file"
    code, out, err = run_cli(capsys, "store", "check", *overrides(directory))
    assert code == 2 and "DAMAGED" in out and "Traceback" not in err
    assert "restore the file from a backup" in err
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_check_reports_a_sound_store_and_a_new_one(
    sound_store: bytes, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "sound").mkdir()
    (tmp_path / "sound" / local_db.FILE_NAME).write_bytes(sound_store)
    code, out, _ = run_cli(capsys, "store", "check", *overrides(tmp_path / "sound"))
    assert code == 0
    assert "schema: ok" in out and "integrity: ok" in out and "DAMAGED" not in out
    code, out, _ = run_cli(capsys, "store", "check", *overrides(tmp_path / "new"))
    assert code == 0 and "a new store is made on the first write" in out
    assert not (tmp_path / "new" / local_db.FILE_NAME).exists()  # checking creates nothing


def test_only_a_missing_file_is_a_new_store(tmp_path: Path) -> None:
    async def main() -> None:
        store = LocalStore(LocalStore.Params(directory=str(tmp_path)))  # type: ignore[arg-type]
        await store.upsert("ws", [memory("ws", "m", 1)])
        assert await store.count("ws") == 1
        await store.aclose()

    asyncio.run(main())
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    path = tmp_path / local_db.FILE_NAME
    path.write_bytes(b"")

    async def reopen() -> None:
        store = LocalStore(LocalStore.Params(directory=str(tmp_path)))  # type: ignore[arg-type]
        try:
            await store.count("ws")
        finally:
            await store.aclose()

    with pytest.raises(StoreDamagedError, match="empty"):
        asyncio.run(reopen())
    assert path.read_bytes() == b""
