"""Erasing a user's (or a whole workspace's) share of a local store file: ``forget`` on the ``local`` store.

One transaction (``BEGIN IMMEDIATE``): the memories go with tombstones stamped with a new
revision, so every process's in-memory index drops them when it next catches up; the message
ledger entries, the chat sessions and the history events go with them. History events are chosen by the memory
records they carry (``old``/``new`` with the user's ``target``,
:func:`~flowmem.schema.history.record_targets`), which the ``record`` JSON holds: the
workspace's events are scanned and each record read, so events of memories deleted long ago
(whose text they still hold) are found too. A dry run reads the same in a read transaction and
changes nothing.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from flowmem.schema.history import record_targets
from flowmem.vector_store.base import ForgetCounts

if TYPE_CHECKING:
    from flowmem.vector_store.local.db import LocalDB


def forget(
    db: LocalDB, workspace_id: str, user_id: str | None, dry_run: bool
) -> tuple[ForgetCounts, list[str], int | None]:
    """Erase (or count) ``user_id``'s share of ``workspace_id`` (everything of it when ``user_id`` is ``None``).

    Returns:
        The counts, the ids of the memories erased, and the new revision (``None`` when no memory was erased).
    """
    user = "" if user_id is None else " AND target = ?"
    ledger_user = "" if user_id is None else " AND user_id = ?"
    args = (workspace_id,) if user_id is None else (workspace_id, user_id)
    conn = db.conn
    with db.transaction(read_only=dry_run):
        memories = [r[0] for r in conn.execute(f"SELECT memory_id FROM memories WHERE workspace_id = ?{user}", args)]
        messages = conn.execute(f"SELECT count(*) FROM messages WHERE workspace_id = ?{ledger_user}", args).fetchone()
        rows = conn.execute("SELECT event_id, record FROM history WHERE workspace_id = ?", (workspace_id,))
        events = [event_id for event_id, record in rows if user_id is None or user_id in _targets(record)]
        sessions = conn.execute(f"SELECT count(*) FROM sessions WHERE workspace_id = ?{ledger_user}", args).fetchone()
        counts = ForgetCounts(
            memories=len(memories), messages=int(messages[0]), history=len(events), sessions=int(sessions[0])
        )
        if dry_run:
            return counts, [], None
        db.advance_fence(workspace_id, user_id)  # in this transaction: a write prepared before it is refused
        revision = db._bump() if memories else None
        if revision is not None:
            db._delete(workspace_id, memories, revision)
        conn.execute(f"DELETE FROM messages WHERE workspace_id = ?{ledger_user}", args)
        conn.execute(f"DELETE FROM sessions WHERE workspace_id = ?{ledger_user}", args)
        conn.executemany(
            "DELETE FROM history WHERE workspace_id = ? AND event_id = ?", ((workspace_id, e) for e in events)
        )
    return counts, memories, revision


def _targets(record: str) -> list[str]:
    event = json.loads(record)
    return record_targets(event.get("old"), event.get("new"))
