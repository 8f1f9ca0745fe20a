"""Chat sessions on the ``local`` store: durable across a restart, and added to older store files on open."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from flowmem.testing.conformance_sessions import session
from flowmem.vector_store.local import db as local_db
from flowmem.vector_store.local.store import LocalStore


def _store(directory: Path) -> LocalStore:
    return LocalStore(LocalStore.Params(directory=str(directory), synchronous="normal"))


def test_a_session_survives_a_restart(tmp_path: Path) -> None:
    async def write() -> None:
        store = _store(tmp_path)
        await store.put_session(session("w", "alice", "s1", "I moved to Lisbon.").next_version(summary="so far"))
        await store.aclose()

    async def read() -> None:
        store = _store(tmp_path)
        try:
            got = await store.get_session("w", "alice", "s1")
            assert got is not None and got.version == 1 and got.summary == "so far"
            assert [m.content for m in got.messages] == ["I moved to Lisbon."]
        finally:
            await store.aclose()

    asyncio.run(write())
    asyncio.run(read())


def test_a_file_from_before_sessions_gains_the_table_on_open(tmp_path: Path) -> None:
    async def touch() -> None:
        store = _store(tmp_path)
        await store.stats()
        await store.aclose()

    asyncio.run(touch())
    path = tmp_path / local_db.FILE_NAME
    conn = sqlite3.connect(path)
    with conn:  # what a schema-2 file looks like: no sessions table
        conn.execute("DROP TABLE sessions")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    conn.close()

    async def use() -> None:
        store = _store(tmp_path)
        try:
            await store.put_session(session("w", "alice", "s1", "hello").next_version())
            assert (await store.get_session("w", "alice", "s1")) is not None
            assert (await store.forget("w", "alice"))["sessions"] == 1
        finally:
            await store.aclose()

    asyncio.run(use())
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (local_db.SCHEMA_VERSION,)
    conn.close()
