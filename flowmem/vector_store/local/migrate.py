"""Upgrading an older ``local`` store file to the current schema, in the transaction that opens it.

Schema history:

* **1** — the message ledger (``messages``) was keyed by (workspace, message id). Two users of a
  workspace who both sent ``m1`` shared one entry, so the second user's message was skipped as
  "already memorized" and never stored.
* **2** — the ledger is keyed by (workspace, user, message id): ``messages`` gains ``user_id``.
* **3** — chat sessions (short-term memory): a new ``sessions`` table
  (:mod:`~flowmem.vector_store.local.sessions`); nothing else changes, so 2 → 3 only creates it.
* **4** — lexical (BM25) search: the FTS5 table ``lexical`` and its key table ``lexical_docs``
  (:mod:`~flowmem.vector_store.local.lexical`); 3 → 4 creates them and indexes every stored memory.

Migrating 1 → 2 (automatic, on the first open by a flowmem that reads schema 2; one transaction,
so a crash leaves the file at schema 1 and the next open tries again): each legacy ledger entry is
attributed to every user that a memory derived from that message belongs to — a memory of the
same workspace whose ``source`` names the message id, either still in the store (any status) or
recorded in the history (an updated or deleted memory); its ``target`` is the user. An entry no
memory names is dropped: the write path filtered that message out before (no personal
information), so processing it again is harmless (it is filtered again, or its memory repeats an
existing one exactly and is de-duplicated). Dropping is the safe side: keeping such an entry for
"any user" would go on shadowing other users' messages of the same id. A schema-2 file is
refused by an older flowmem (it names both versions), never misread.

Migrating 3 → 4 indexes every stored memory's lexical document in the opening transaction. (A
change of the tokeniser, :mod:`flowmem.scoring.tokens`, will need such a step too: the index holds
its output.)
"""

from __future__ import annotations

import sqlite3

from loguru import logger

from flowmem.vector_store.local import lexical as local_lexical
from flowmem.vector_store.local import sessions as local_sessions

# Every (workspace, user, message) that some memory record says was derived from the message:
# the memories themselves and both sides of every history event (which keeps deleted memories).
_ATTRIBUTIONS = """
SELECT m.workspace_id AS workspace_id, m.target AS user_id, s.value AS message_id
  FROM memories AS m, json_each(m.sources) AS s
UNION
SELECT h.workspace_id, json_extract(h.record, '$.' || side.name || '.target'), s.value
  FROM history AS h,
       (SELECT 'old' AS name UNION ALL SELECT 'new') AS side,
       json_each(json_extract(h.record, '$.' || side.name || '.source')) AS s
"""

_V1_TO_V2 = f"""
CREATE TABLE messages_v2 (
    workspace_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    memorized_at TEXT NOT NULL,
    PRIMARY KEY (workspace_id, user_id, message_id)
);
INSERT OR IGNORE INTO messages_v2 (workspace_id, user_id, message_id, memorized_at)
SELECT l.workspace_id, a.user_id, l.message_id, l.memorized_at
  FROM messages AS l JOIN ({_ATTRIBUTIONS}) AS a
    ON a.workspace_id = l.workspace_id AND a.message_id = l.message_id
 WHERE a.user_id IS NOT NULL AND a.user_id != '';
DROP TABLE messages;
ALTER TABLE messages_v2 RENAME TO messages;
"""


def _v1_to_v2(conn: sqlite3.Connection, path: object) -> None:
    legacy = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    for statement in _V1_TO_V2.split(";"):
        if statement.strip():
            conn.execute(statement)
    kept = conn.execute("SELECT count(DISTINCT workspace_id || char(0) || message_id) FROM messages").fetchone()[0]
    logger.info(
        "local store {}: message ledger migrated to per-user keys (schema 2): {} of {} memorized messages "
        "attributed to their users, {} that no memory names dropped (they will be processed again)",
        path, kept, legacy, legacy - kept,
    )  # fmt: skip


def _v2_to_v3(conn: sqlite3.Connection, path: object) -> None:
    conn.execute(local_sessions.SCHEMA)
    logger.info("local store {}: chat sessions table added (schema 3)", path)


def _v3_to_v4(conn: sqlite3.Connection, path: object) -> None:
    local_lexical.create(conn)
    count = local_lexical.index_all(conn)
    logger.info("local store {}: {} memories indexed for lexical search (schema 4)", path, count)


# version found → (the version it becomes, how)
_STEPS = {"1": ("2", _v1_to_v2), "2": ("3", _v2_to_v3), "3": ("4", _v3_to_v4)}


def can_migrate(version: str, target: str) -> bool:
    """Whether a file of schema ``version`` can be brought to schema ``target``."""
    while version != target:
        if version not in _STEPS:
            return False
        version = _STEPS[version][0]
    return True


def migrate(conn: sqlite3.Connection, version: str, target: str, path: object) -> None:
    """Bring the open file from schema ``version`` to ``target``, inside the caller's write transaction.

    Raises:
        KeyError: No migration path (check :func:`can_migrate` first).
    """
    while version != target:
        version, step = _STEPS[version]
        step(conn, path)
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)", (target,))
