"""Telling a damaged ``local`` store file from a sound one, without ever writing to it.

Only a missing file is a new store: it is created whole (schema and meta in a temporary file,
linked into place), so no crash can leave a half-made store behind. An existing file must look
like a flowmem store before anything opens it for writing — not empty, an SQLite file, as long as
its header says, with every table and index of the schema and a schema version — otherwise every
command stops with :class:`~flowmem.core.errors.StoreDamagedError`, which names the file and what to
do, and the file is left byte for byte as it was. SQLite errors met later (a damaged page read by
a query) become the same error through :func:`sqlite_failure`. ``flowmem store check`` runs all of
it, plus SQLite's full ``integrity_check``, through :func:`report`.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path

from flowmem.core.errors import BackendUnavailableError, FlowmemError, StoreDamagedError

HEADER = b"SQLite format 3\x00"
# In every schema version so far; a migration may add objects, never remove these.
REQUIRED_TABLES = ("meta", "memories", "tombstones", "history", "messages")
REQUIRED_INDEXES = ("memories_key", "memories_seq", "tombstones_seq", "history_memory")
# SQLite's primary result codes that mean "this file is not a sound database".
_DAMAGE_CODES = {11: "SQLITE_CORRUPT", 26: "SQLITE_NOTADB"}
_DAMAGE_WORDS = ("malformed", "not a database", "no such table", "no such column", "no such index")


def damaged(path: Path, problem: str) -> StoreDamagedError:
    """The error every command raises for a damaged file: which file, what is wrong, what to do."""
    return StoreDamagedError(
        f"the local store file {path} is damaged: {problem}. flowmem does not write to a damaged file; "
        f"`flowmem store check` reports what is wrong; {StoreDamagedError.advice}"
    )


def sqlite_failure(path: Path, exc: sqlite3.Error) -> FlowmemError:
    """The one clear error for an SQLite error on ``path``: damage, or a file that cannot be used now."""
    if _is_damage(exc):
        return damaged(path, f"SQLite says: {exc}")
    name = getattr(exc, "sqlite_errorname", type(exc).__name__)
    return BackendUnavailableError(f"the local store file {path} cannot be used: {exc} ({name})")


def file_problem(path: Path) -> str | None:
    """What is wrong with the bytes of an existing store file (size and header), or ``None``."""
    size = path.stat().st_size
    if size == 0:
        return "it is empty (0 bytes); only a missing file is a new store"
    with path.open("rb") as handle:
        header = handle.read(100)
    if len(header) < 100 or not header.startswith(HEADER):
        return f"it is not an SQLite database ({size} bytes that do not start with the SQLite header)"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    header_size_valid = header[24:28] == header[92:96]  # SQLite's own rule for trusting the page count
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return None  # pages may still be in the write-ahead log; SQLite's own reads decide
    expected = pages * page_size if header_size_valid and pages else page_size
    if size < expected:
        return f"it is truncated: {size} bytes, but its header says at least {expected} ({page_size}-byte pages)"
    return None


def schema_problem(conn: sqlite3.Connection) -> str | None:
    """What is missing from the schema of an open store file, or ``None`` (reads only)."""
    found = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
    missing = [t for t in REQUIRED_TABLES if t not in found]
    if missing:
        return f"table{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing"
    missing = [i for i in REQUIRED_INDEXES if i not in found]
    if missing:
        return f"index{'es' if len(missing) > 1 else ''} {', '.join(missing)} missing"
    if conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() is None:
        return "no schema version in its meta table"
    return None


def verify(path: Path) -> None:
    """Raise :class:`StoreDamagedError` unless the existing file at ``path`` looks like a sound store.

    Opens the file read-only: whatever it finds, the file is not changed.
    """
    problem = file_problem(path)
    if problem is None:
        problem = _with_reader(path, schema_problem)
    if problem is not None:
        raise damaged(path, problem)


def report(path: Path) -> list[tuple[str, str | None]]:
    """Every check of ``path``: (what was checked, ``None`` when sound, else the problem). Read-only."""
    if not path.exists():
        return [(f"file {path} (none yet: a new store is made on the first write)", None)]
    checks: list[tuple[str, str | None]] = [(f"file {path}", file_problem(path))]
    if checks[0][1] is None:
        checks.append(("schema", _with_reader(path, schema_problem)))
        checks.append(("integrity", _with_reader(path, _integrity_problem)))
    return checks


def create(path: Path, initialise: Callable[[sqlite3.Connection], None], page_size: int) -> None:
    """Make a new store file at ``path`` whole, unless one appears there first (another process).

    ``initialise`` creates the schema in a temporary file beside it; the finished file is then linked
    into place, so ``path`` is never a half-made store.
    """
    temporary = path.with_name(f".{path.name}.new-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        conn = sqlite3.connect(temporary, isolation_level=None)
        try:
            conn.execute(f"PRAGMA page_size={page_size}")
            conn.execute("BEGIN IMMEDIATE")
            initialise(conn)
            conn.execute("COMMIT")
        finally:
            conn.close()
        try:
            os.link(temporary, path)  # fails if the file exists: a racing process made it first, use theirs
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _with_reader(path: Path, read: Callable[[sqlite3.Connection], str | None]) -> str | None:
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise sqlite_failure(path, exc) from exc
    try:
        return read(conn)
    except sqlite3.Error as exc:
        if not _is_damage(exc):  # busy, locked, I/O: not the file's fault
            raise sqlite_failure(path, exc) from exc
        return f"SQLite says: {exc}"
    finally:
        conn.close()


def _is_damage(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+; the message words cover 3.10
    return (code is not None and code & 0xFF in _DAMAGE_CODES) or any(w in str(exc).lower() for w in _DAMAGE_WORDS)


def _integrity_problem(conn: sqlite3.Connection) -> str | None:
    rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check(20)")]
    return None if rows == ["ok"] else "; ".join(rows)
