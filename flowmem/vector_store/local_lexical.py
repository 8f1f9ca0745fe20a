"""The ``local`` store's lexical (BM25) index: an SQLite FTS5 table kept in step with ``memories``.

``lexical`` holds every memory's :func:`~flowmem.vector_store.lexical_text.lexical_document`,
already tokenised (:mod:`flowmem.scoring.tokens`): FTS5's ``unicode61`` tokenizer, with
diacritics kept, then only splits it at the spaces, so it sees the same terms as every other
store. Its rowid is the ``id`` of the memory's ``lexical_docs`` row — an ``INTEGER PRIMARY KEY``,
which ``VACUUM`` keeps (a plain rowid of ``memories`` it may renumber). Every function here runs
inside the caller's write transaction (the one that writes or deletes the memories), so the
index never disagrees with the memories, even after a crash.

Scores are :func:`~flowmem.vector_store.lexical_text.bm25`, the formula every store uses, from
the statistics of the whole file: the documents' lengths (``lexical_docs.length``), each term's
document frequency and per-document counts (FTS5's ``fts5vocab`` views of the index, read by
term). FTS5's own ``bm25()`` is not used: its idf is clamped to ~0 for a term in half the
documents or more (see lexical_text).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from flowmem.schema.memory import Memory
from flowmem.vector_store.lexical_text import bm25, idf, lexical_document

SCHEMA = """
CREATE TABLE IF NOT EXISTS lexical_docs (
    id INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    length INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS lexical_docs_key ON lexical_docs (workspace_id, memory_id);
CREATE VIRTUAL TABLE IF NOT EXISTS lexical USING fts5(text, tokenize = 'unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE IF NOT EXISTS lexical_terms USING fts5vocab(lexical, row);
CREATE VIRTUAL TABLE IF NOT EXISTS lexical_instances USING fts5vocab(lexical, instance);
"""

# A term's count in each document of a workspace that has it, with the document's length.
_POSTINGS = (
    "SELECT d.memory_id, d.length, count(*) FROM lexical_instances AS v JOIN lexical_docs AS d ON d.id = v.doc"
    " WHERE v.term = ? AND d.workspace_id = ? GROUP BY v.doc"
)


def create(conn: sqlite3.Connection) -> None:
    """The index's tables, if missing."""
    for statement in SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)


def put(conn: sqlite3.Connection, workspace_id: str, memories: Sequence[Memory]) -> None:
    """(Re-)index the lexical documents of ``memories``: a changed content replaces the old entry."""
    for memory in memories:
        text = lexical_document(memory)
        length = len(text.split())
        row = conn.execute(
            "SELECT id FROM lexical_docs WHERE workspace_id = ? AND memory_id = ?", (workspace_id, memory.memory_id)
        ).fetchone()
        if row is None:
            doc = conn.execute(
                "INSERT INTO lexical_docs (workspace_id, memory_id, length) VALUES (?, ?, ?)",
                (workspace_id, memory.memory_id, length),
            ).lastrowid
        else:
            doc = row[0]
            conn.execute("UPDATE lexical_docs SET length = ? WHERE id = ?", (length, doc))
            conn.execute("DELETE FROM lexical WHERE rowid = ?", (doc,))
        conn.execute("INSERT INTO lexical (rowid, text) VALUES (?, ?)", (doc, text))


def remove(conn: sqlite3.Connection, workspace_id: str, memory_ids: Sequence[str]) -> None:
    """Drop the lexical documents of these memories."""
    keys = [(workspace_id, memory_id) for memory_id in memory_ids]
    conn.executemany(
        "DELETE FROM lexical WHERE rowid IN (SELECT id FROM lexical_docs WHERE workspace_id = ? AND memory_id = ?)",
        keys,
    )
    conn.executemany("DELETE FROM lexical_docs WHERE workspace_id = ? AND memory_id = ?", keys)


def search(conn: sqlite3.Connection, workspace_id: str, terms: Sequence[str]) -> list[tuple[str, float]]:
    """``(memory_id, BM25)`` of every memory of ``workspace_id`` containing any of ``terms`` (distinct),
    best first, ties by memory id. The caller holds a read transaction."""
    count, total = conn.execute("SELECT count(*), total(length) FROM lexical_docs").fetchone()
    if not count:
        return []
    average = total / count
    scores: dict[str, float] = {}
    for term in terms:
        found = conn.execute("SELECT doc FROM lexical_terms WHERE term = ?", (term,)).fetchone()
        if found is None:
            continue
        term_idf = idf(found[0], count)
        for memory_id, length, tf in conn.execute(_POSTINGS, (term, workspace_id)):
            scores[memory_id] = scores.get(memory_id, 0.0) + bm25(tf, length, average, term_idf)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def index_all(conn: sqlite3.Connection) -> int:
    """Index every stored memory (a file from before the index, see local_migrate); how many."""
    rows = conn.execute("SELECT workspace_id, record FROM memories").fetchall()
    for workspace_id, record in rows:
        put(conn, workspace_id, [Memory.model_validate_json(record)])
    return len(rows)
