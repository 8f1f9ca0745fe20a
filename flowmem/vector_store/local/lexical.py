"""The ``local`` store's lexical text: an SQLite FTS5 table kept in step with ``memories``.

``lexical`` holds every memory's :func:`~flowmem.vector_store.lexical_text.lexical_document`,
already tokenised (:mod:`flowmem.scoring.tokens`): FTS5's ``unicode61`` tokenizer, with
diacritics kept, then only splits it at the spaces, so it sees the same terms as every other
store. Its rowid is the ``id`` of the memory's ``lexical_docs`` row — an ``INTEGER PRIMARY KEY``,
which ``VACUUM`` keeps (a plain rowid of ``memories`` it may renumber). Every function here runs
inside the caller's transaction (the one that writes or deletes the memories), so the text never
disagrees with the memories, even after a crash.

Searching: each process scores with its in-memory :class:`~flowmem.vector_store.lexical_text.BM25Index`
per workspace, loaded from this table and kept current with the vector index (the same revision
catch-up, :meth:`~flowmem.vector_store.local.db.LocalDB.changes`): the formula every store uses,
over the workspace's statistics, and a few array operations per query term. The FTS5 index stays
available to SQL (``MATCH``) and is where the text is kept durably.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from flowmem.schema.memory import Memory
from flowmem.vector_store.lexical_text import lexical_document

SCHEMA = """
CREATE TABLE IF NOT EXISTS lexical_docs (
    id INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    memory_id TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS lexical_docs_key ON lexical_docs (workspace_id, memory_id);
CREATE VIRTUAL TABLE IF NOT EXISTS lexical USING fts5(text, tokenize = 'unicode61 remove_diacritics 0');
"""
_CHUNK = 900  # ids per statement, below SQLite's variable limit


def create(conn: sqlite3.Connection) -> None:
    """The index's tables, if missing."""
    for statement in SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)


def put(conn: sqlite3.Connection, workspace_id: str, memories: Sequence[Memory]) -> None:
    """(Re-)index the lexical documents of ``memories``: a changed text replaces the old entry; an unchanged one
    (a memory rewritten for its status, sources or slots: an expiry, the same words again) is left as it is,
    so the FTS5 index is not rewritten for it (the file holds the same text either way)."""
    stored = _entries(conn, workspace_id, list(dict.fromkeys(m.memory_id for m in memories)))
    for memory in memories:
        text = lexical_document(memory)
        entry = stored.get(memory.memory_id)
        if entry is None:
            doc = conn.execute(
                "INSERT INTO lexical_docs (workspace_id, memory_id) VALUES (?, ?)", (workspace_id, memory.memory_id)
            ).lastrowid
        elif entry[1] == text:
            continue
        else:
            doc = entry[0]
            conn.execute("DELETE FROM lexical WHERE rowid = ?", (doc,))
        conn.execute("INSERT INTO lexical (rowid, text) VALUES (?, ?)", (doc, text))
        if doc is not None:
            stored[memory.memory_id] = (doc, text)  # a memory twice in one write: its last text stays


def _entries(
    conn: sqlite3.Connection, workspace_id: str, memory_ids: Sequence[str]
) -> dict[str, tuple[int, str | None]]:
    """``memory_id -> (lexical_docs id, indexed text)`` of these memories that have an entry (``None``: no text)."""
    found: dict[str, tuple[int, str | None]] = {}
    for start in range(0, len(memory_ids), _CHUNK):
        chunk = memory_ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        query = (
            "SELECT d.memory_id, d.id, l.text FROM lexical_docs AS d LEFT JOIN lexical AS l ON l.rowid = d.id"
            f" WHERE d.workspace_id = ? AND d.memory_id IN ({marks})"
        )
        found.update((r[0], (r[1], r[2])) for r in conn.execute(query, (workspace_id, *chunk)))
    return found


def remove(conn: sqlite3.Connection, workspace_id: str, memory_ids: Sequence[str]) -> None:
    """Drop the lexical documents of these memories."""
    keys = [(workspace_id, memory_id) for memory_id in memory_ids]
    conn.executemany(
        "DELETE FROM lexical WHERE rowid IN (SELECT id FROM lexical_docs WHERE workspace_id = ? AND memory_id = ?)",
        keys,
    )
    conn.executemany("DELETE FROM lexical_docs WHERE workspace_id = ? AND memory_id = ?", keys)


def texts(conn: sqlite3.Connection, workspace_id: str, memory_ids: Sequence[str]) -> dict[str, str]:
    """The lexical text of each of these memories that has one (the caller holds a transaction)."""
    entries = _entries(conn, workspace_id, memory_ids)
    return {memory_id: text for memory_id, (_, text) in entries.items() if text is not None}


def index_all(conn: sqlite3.Connection) -> int:
    """Index every stored memory (a file from before the index, see local_migrate); how many."""
    rows = conn.execute("SELECT workspace_id, record FROM memories").fetchall()
    for workspace_id, record in rows:
        put(conn, workspace_id, [Memory.model_validate_json(record)])
    return len(rows)
