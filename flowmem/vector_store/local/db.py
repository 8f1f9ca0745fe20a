"""The SQLite file behind the ``local`` store (synchronous; the store calls it from one worker thread).

Layout: ``memories`` holds one row per (workspace, memory) with the record as JSON, the unit
vector as float32 bytes and the columns filters need; ``tombstones`` records deletions; ``meta``
holds the schema version, the vector width and a revision counter; ``history`` and ``messages``
are the write path's change log and message ledger (keyed by workspace, user and message id);
``sessions`` the chat sessions' short-term memory (:mod:`~flowmem.vector_store.local.sessions`).
Every write transaction bumps the revision and stamps the rows it touches with it, so a process
can bring its in-memory index up to date with what other processes wrote by reading only the
rows newer than its revision.

Existing stores: a schema-1 file (ledger keyed by workspace and message id only) is migrated to
schema 2, and so on up to the current one, in the transaction that opens it;
:mod:`flowmem.vector_store.local.migrate` says how, and which legacy ledger entries it keeps.
``lexical`` and ``lexical_docs`` are the lexical (BM25) index (:mod:`~flowmem.vector_store.local.lexical`).
"""

from __future__ import annotations

import json
import sqlite3
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from flowmem.core.errors import BackendUnavailableError
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.vector_store.batch import WriteBatch
from flowmem.vector_store.erasure import WORKSPACE, Fence, gone
from flowmem.vector_store.filters import PART_FIELDS
from flowmem.vector_store.index import Row
from flowmem.vector_store.local import check as local_check
from flowmem.vector_store.local import lexical as local_lexical
from flowmem.vector_store.local import sessions as local_sessions
from flowmem.vector_store.local.migrate import can_migrate, migrate
from flowmem.vector_store.rules import check_width

SCHEMA_VERSION = "4"  # 2: the message ledger is per user; 3: chat sessions; 4: lexical index (see local_migrate)
FILE_NAME = "memories.sqlite3"
# Tombstones are pruned past this many; a process whose index is older then reloads it whole.
TOMBSTONE_LIMIT = 50_000
SQL_VARIABLES = 900
PAGE_SIZE = 16384  # rows of ~2.5 kB (vector + record): few overflow pages

_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memories (
    workspace_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    target TEXT NOT NULL,
    memory_type TEXT NOT NULL,
    status TEXT NOT NULL,
    parts BLOB NOT NULL,
    created INTEGER NOT NULL,
    said INTEGER NOT NULL,
    event_from INTEGER NOT NULL,
    event_to INTEGER NOT NULL,
    sources TEXT NOT NULL,
    record TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS memories_key ON memories (workspace_id, memory_id);
CREATE INDEX IF NOT EXISTS memories_seq ON memories (workspace_id, seq);
CREATE TABLE IF NOT EXISTS tombstones (
    workspace_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, memory_id)
);
CREATE INDEX IF NOT EXISTS tombstones_seq ON tombstones (workspace_id, seq);
CREATE TABLE IF NOT EXISTS history (
    event_id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    time TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS history_memory ON history (workspace_id, memory_id, time);
CREATE TABLE IF NOT EXISTS fences (
    workspace_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
);
CREATE TABLE IF NOT EXISTS messages (
    workspace_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    memorized_at TEXT NOT NULL,
    PRIMARY KEY (workspace_id, user_id, message_id)
);
"""
    + local_sessions.SCHEMA
    + ";"  # the sessions script is one statement without its semicolon
    + local_lexical.SCHEMA
)


def _initialise(conn: sqlite3.Connection) -> None:
    """A new store file: the current schema at revision 0 (local_check.create runs it in a transaction)."""
    for statement in _statements(_SCHEMA):
        conn.execute(statement)
    conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)",
        [("schema", SCHEMA_VERSION), ("revision", "0"), ("pruned_through", "0")],
    )


_PARTS = struct.Struct(f"<{len(PART_FIELDS)}i")
# The slots come out of the record (no column of their own: a store written before slots needs no migration).
_ROW_COLUMNS = (
    "memory_id, target, memory_type, status, parts, created, sources, said, event_from, event_to, vector,"
    " json_extract(record, '$.metadata.slots')"
)


@dataclass
class Changes:
    """What changed in one workspace since a revision."""

    revision: int
    rows: list[Row]
    vectors: np.ndarray
    deleted: list[str]
    full: bool  # the rows are the whole workspace (tombstones were pruned past the revision)
    texts: dict[str, str]  # the lexical text of each row (local_lexical), read in the same transaction


class LocalDB:
    """One connection to a store file."""

    def __init__(self, directory: Path, *, synchronous: str, store_name: str):
        self.path = directory / FILE_NAME
        self.store_name = store_name
        try:
            directory.mkdir(parents=True, exist_ok=True)
            # Only a missing file is a new store (made whole); an existing one must be sound before
            # anything below may write to it (local_check raises StoreDamagedError, file untouched).
            if self.path.exists():
                local_check.verify(self.path)
            else:
                local_check.create(self.path, _initialise, PAGE_SIZE)
            self.conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise BackendUnavailableError(f"cannot open the local store at {self.path}: {exc}") from None
        self.conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute(f"PRAGMA synchronous={synchronous}")
        self.conn.execute("PRAGMA busy_timeout=60000")
        with self.transaction():
            for statement in _statements(_SCHEMA):
                self.conn.execute(statement)
            version = self._meta("schema")
            if version is None:
                self._set_meta("schema", SCHEMA_VERSION)
                self._set_meta("revision", "0")
                self._set_meta("pruned_through", "0")
            elif version != SCHEMA_VERSION and can_migrate(version, SCHEMA_VERSION):
                migrate(self.conn, version, SCHEMA_VERSION, self.path)  # in this transaction: all or nothing
            elif version != SCHEMA_VERSION:
                raise BackendUnavailableError(
                    f"the local store at {self.path} has schema {version}; this flowmem reads schema {SCHEMA_VERSION}"
                )

    # -- transactions and meta -----------------------------------------------------------------
    def transaction(self, *, read_only: bool = False) -> _Transaction:
        return _Transaction(self.conn, read_only)

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    @property
    def dims(self) -> int | None:
        value = self._meta("dims")
        return None if value is None else int(value)

    def revision(self) -> int:
        return int(self._meta("revision") or 0)

    def _bump(self) -> int:
        revision = self.revision() + 1
        self._set_meta("revision", str(revision))
        return revision

    # -- writes --------------------------------------------------------------------------------
    def write(self, workspace_id: str, batch: WriteBatch, rows: list[Row]) -> tuple[int | None, list[str]]:
        """Memories, their history, deletions and the messages they came from, in one transaction — none of
        it if the batch's fence is stale or a memory it must find is gone (``rows``: its memories' index rows).

        Returns:
            The new revision when memories were written or deleted (else ``None``), and the ids
            of ``deleted`` that existed (now gone, with tombstones).
        """
        memories, vectors, history, ledger, deleted = (
            batch.memories, batch.vectors, batch.history, batch.ledger, batch.deleted
        )  # fmt: skip
        with self.transaction():
            self.check_fence(batch.fence)
            missing = set(batch.must_exist).difference(
                i for chunk in _chunks(batch.must_exist) for i in self._existing(workspace_id, chunk)
            )
            if missing:
                raise gone(workspace_id, [i for i in batch.must_exist if i in missing])
            existing = [i for chunk in _chunks(deleted) for i in self._existing(workspace_id, chunk)]
            revision = self._bump() if vectors is not None or existing else None
            if vectors is not None and revision is not None:
                self._upsert(workspace_id, memories, rows, vectors, revision)
            self.conn.executemany(
                "INSERT OR IGNORE INTO history (event_id, workspace_id, memory_id, time, record)"
                " VALUES (?, ?, ?, ?, ?)",
                ((e.event_id, e.workspace_id, e.memory_id, e.time.isoformat(), e.model_dump_json()) for e in history),
            )
            if existing and revision is not None:
                self._delete(workspace_id, existing, revision)
            if ledger is not None:
                user_id, message_ids = ledger
                now = datetime.now().isoformat(timespec="seconds")
                self.conn.executemany(
                    "INSERT OR IGNORE INTO messages (workspace_id, user_id, message_id, memorized_at)"
                    " VALUES (?, ?, ?, ?)",
                    ((workspace_id, user_id, message_id, now) for message_id in message_ids),
                )
        return revision, existing

    def generations(self, workspace_id: str, keys: list[str]) -> dict[str, int]:
        """The erasure generations of ``keys`` (:mod:`~flowmem.vector_store.erasure`); keys never forgotten are
        left out."""
        found: dict[str, int] = {}
        for chunk in _chunks(keys):
            marks = ",".join("?" * len(chunk))
            query = f"SELECT user_id, generation FROM fences WHERE workspace_id = ? AND user_id IN ({marks})"
            found.update((r[0], int(r[1])) for r in self.conn.execute(query, (workspace_id, *chunk)))
        return found

    def check_fence(self, fence: Fence | None) -> None:
        """Raise :class:`~flowmem.core.errors.WriteConflictError` if ``fence`` is stale (inside the write's
        transaction)."""
        if fence is not None:
            fence.check(self.generations(fence.workspace_id, list(fence.generations)))

    def advance_fence(self, workspace_id: str, user_id: str | None) -> None:
        """A forget of ``user_id`` (the workspace without one) starts: writes prepared before it are refused."""
        self.conn.execute(
            "INSERT INTO fences (workspace_id, user_id, generation) VALUES (?, ?, 1)"
            " ON CONFLICT (workspace_id, user_id) DO UPDATE SET generation = generation + 1",
            (workspace_id, WORKSPACE if user_id is None else user_id),
        )

    def history(self, workspace_id: str, memory_id: str | None, limit: int) -> list[HistoryEvent]:
        args: tuple[str, ...]
        if memory_id is None:
            query, args = "SELECT record FROM history WHERE workspace_id = ?", (workspace_id,)
        else:
            query, args = (
                "SELECT record FROM history WHERE workspace_id = ? AND memory_id = ?",
                (workspace_id, memory_id),
            )
        rows = self.conn.execute(f"{query} ORDER BY time DESC, rowid DESC LIMIT ?", (*args, limit)).fetchall()
        return [HistoryEvent.model_validate_json(r[0]) for r in reversed(rows)]

    def memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> set[str]:
        found: set[str] = set()
        for chunk in _chunks(message_ids):
            marks = ",".join("?" * len(chunk))
            query = (
                f"SELECT message_id FROM messages WHERE workspace_id = ? AND user_id = ? AND message_id IN ({marks})"
            )
            found.update(r[0] for r in self.conn.execute(query, (workspace_id, user_id, *chunk)))
        return found

    def _upsert(
        self, workspace_id: str, memories: list[Memory], rows: list[Row], vectors: np.ndarray, revision: int
    ) -> None:
        width = vectors.shape[1]
        # The store base checked the width already; another process may have given the file its
        # first vectors since, so the rule is applied again inside the transaction that writes.
        check_width(f"vector_store '{self.store_name}' ({self.path})", self.dims, width, "vectors")
        if self.dims is None:
            self._set_meta("dims", str(width))
        self.conn.executemany(
            "INSERT INTO memories (workspace_id, memory_id, seq, target, memory_type, status, parts, created,"
            " said, event_from, event_to, sources, record, vector)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (workspace_id, memory_id) DO UPDATE SET seq = excluded.seq, target = excluded.target,"
            " memory_type = excluded.memory_type, status = excluded.status, parts = excluded.parts,"
            " created = excluded.created, said = excluded.said, event_from = excluded.event_from,"
            " event_to = excluded.event_to, sources = excluded.sources, record = excluded.record,"
            " vector = excluded.vector",
            (
                (
                    workspace_id,
                    row.memory_id,
                    revision,
                    row.target,
                    row.memory_type,
                    row.status,
                    _PARTS.pack(*row.parts),
                    row.created,
                    row.said,
                    row.event_from,
                    row.event_to,
                    json.dumps(row.sources) if row.sources else "[]",
                    memory.model_dump_json(exclude={"scores", "score_sources", "explain", "vector"}),
                    vector.tobytes(),
                )
                for memory, row, vector in zip(memories, rows, vectors, strict=True)
            ),
        )
        self.conn.executemany(
            "DELETE FROM tombstones WHERE workspace_id = ? AND memory_id = ?",
            ((workspace_id, row.memory_id) for row in rows),
        )
        local_lexical.put(self.conn, workspace_id, memories)

    def _delete(self, workspace_id: str, existing: list[str], revision: int) -> None:
        # Tombstones stamped with the revision: other processes' indexes drop these ids when they catch up.
        self.conn.executemany(
            "DELETE FROM memories WHERE workspace_id = ? AND memory_id = ?", ((workspace_id, i) for i in existing)
        )
        local_lexical.remove(self.conn, workspace_id, existing)
        self.conn.executemany(
            "INSERT OR REPLACE INTO tombstones (workspace_id, memory_id, seq) VALUES (?, ?, ?)",
            ((workspace_id, i, revision) for i in existing),
        )
        self._prune_tombstones(revision)

    def _existing(self, workspace_id: str, ids: list[str]) -> list[str]:
        marks = ",".join("?" * len(ids))
        query = f"SELECT memory_id FROM memories WHERE workspace_id = ? AND memory_id IN ({marks})"
        return [r[0] for r in self.conn.execute(query, (workspace_id, *ids))]

    def _prune_tombstones(self, revision: int) -> None:
        count = self.conn.execute("SELECT count(*) FROM tombstones").fetchone()[0]
        if count <= TOMBSTONE_LIMIT:
            return
        cutoff = self.conn.execute(
            "SELECT seq FROM tombstones ORDER BY seq LIMIT 1 OFFSET ?", (count // 2,)
        ).fetchone()[0]
        self.conn.execute("DELETE FROM tombstones WHERE seq < ?", (cutoff,))
        self._set_meta("pruned_through", str(cutoff - 1))

    # -- reads ---------------------------------------------------------------------------------
    def changes(self, workspace_id: str, since: int) -> Changes:
        """Rows and deletions of ``workspace_id`` newer than revision ``since`` (all rows if since < 0)."""
        with self.transaction(read_only=True):
            revision = self.revision()
            full = since < 0 or since < int(self._meta("pruned_through") or 0)
            if full:
                cursor = self.conn.execute(
                    f"SELECT {_ROW_COLUMNS} FROM memories WHERE workspace_id = ?", (workspace_id,)
                )
                deleted: list[str] = []
            else:
                cursor = self.conn.execute(
                    f"SELECT {_ROW_COLUMNS} FROM memories WHERE workspace_id = ? AND seq > ?", (workspace_id, since)
                )
                deleted = [
                    r[0]
                    for r in self.conn.execute(
                        "SELECT memory_id FROM tombstones WHERE workspace_id = ? AND seq > ?", (workspace_id, since)
                    )
                ]
            fetched = cursor.fetchall()
            texts = local_lexical.texts(self.conn, workspace_id, [r[0] for r in fetched])
        dims = self.dims or 0
        rows = [
            Row(r[0], r[1], r[2], r[3], _PARTS.unpack(r[4]), r[5],
                tuple(json.loads(r[6])) if r[6] != "[]" else (), r[7], r[8], r[9], _slots(r[11]))
            for r in fetched
        ]  # fmt: skip
        vectors = (
            np.frombuffer(b"".join(r[10] for r in fetched), dtype=np.float32).reshape(len(fetched), dims)
            if fetched
            else np.zeros((0, dims), dtype=np.float32)
        )
        return Changes(revision, rows, vectors, deleted, full, texts)

    def records(self, workspace_id: str, ids: list[str], with_vectors: bool) -> list[Memory]:
        """Memories by id, in the order asked."""
        found: dict[str, Memory] = {}
        column = ", vector" if with_vectors else ""
        for chunk in _chunks(ids):
            marks = ",".join("?" * len(chunk))
            query = f"SELECT memory_id, record{column} FROM memories WHERE workspace_id = ? AND memory_id IN ({marks})"
            for row in self.conn.execute(query, (workspace_id, *chunk)):
                memory = Memory.model_validate_json(row[1])
                if with_vectors:
                    memory.vector = np.frombuffer(row[2], dtype=np.float32).copy()
                found[row[0]] = memory
        return [found[i] for i in ids if i in found]

    def workspaces(self) -> dict[str, int]:
        query = "SELECT workspace_id, count(*) FROM memories GROUP BY workspace_id ORDER BY workspace_id"
        return {r[0]: r[1] for r in self.conn.execute(query)}

    def integrity(self) -> str:
        return str(self.conn.execute("PRAGMA integrity_check").fetchone()[0])

    def close(self) -> None:
        self.conn.close()


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (or ``ROLLBACK`` on error); a read-only one is a plain ``BEGIN``."""

    def __init__(self, conn: sqlite3.Connection, read_only: bool = False):
        self.conn = conn
        self.read_only = read_only

    def __enter__(self) -> None:
        self.conn.execute("BEGIN" if self.read_only else "BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type is not None else "COMMIT")


def _slots(stored: str | None) -> dict[str, str] | None:
    """The slots of a record's ``metadata.slots`` (JSON text), ``None`` when it has none (or not an object)."""
    if stored is None or not stored.startswith("{"):
        return None
    if stored == "{}":  # most memories state no slot: no parse
        return {}
    return {str(k): str(v) for k, v in json.loads(stored).items()}


def _statements(script: str) -> Iterator[str]:
    for statement in script.split(";"):
        if statement.strip():
            yield statement


def _chunks(ids: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(ids), SQL_VARIABLES):
        yield ids[start : start + SQL_VARIABLES]
