"""Chat sessions in a ``local`` store file: the ``sessions`` table (schema 3).

One row per (workspace, user, session): the session as JSON and its version. A write is one
``BEGIN IMMEDIATE`` transaction that reads the stored version and replaces the row only if it is
the one the writer read (optimistic versioning, see :mod:`flowmem.vector_store.sessions`), so two
processes appending to one session never drop each other's message. Sessions are not in the vector
index, so they do not bump the store's revision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flowmem.schema.session import ChatSession

if TYPE_CHECKING:
    from flowmem.vector_store.erasure import Fence
    from flowmem.vector_store.local.db import LocalDB

# The table's one definition: new files get it with the rest of the schema, older ones by migration.
SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    workspace_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (workspace_id, user_id, session_id)
)
"""
_KEY = "workspace_id = ? AND user_id = ? AND session_id = ?"


def get(db: LocalDB, workspace_id: str, user_id: str, session_id: str) -> ChatSession | None:
    row = db.conn.execute(f"SELECT record FROM sessions WHERE {_KEY}", (workspace_id, user_id, session_id)).fetchone()
    return None if row is None else ChatSession.model_validate_json(row[0])


def put(db: LocalDB, session: ChatSession, fence: Fence | None = None) -> bool:
    key = (session.workspace_id, session.user_id, session.session_id)
    with db.transaction():
        db.check_fence(fence)
        row = db.conn.execute(f"SELECT version FROM sessions WHERE {_KEY}", key).fetchone()
        if (0 if row is None else int(row[0])) != session.version - 1:
            return False
        db.conn.execute(
            "INSERT OR REPLACE INTO sessions (workspace_id, user_id, session_id, version, updated_at, record)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (*key, session.version, session.updated_at.isoformat(), session.model_dump_json()),
        )
    return True


def delete(db: LocalDB, workspace_id: str, user_id: str, session_id: str) -> bool:
    with db.transaction():
        cursor = db.conn.execute(f"DELETE FROM sessions WHERE {_KEY}", (workspace_id, user_id, session_id))
    return cursor.rowcount > 0
