"""JSON Lines for memories and messages: one record per line, errors name the line.

Lines are read as bytes and decoded one at a time, so one line that is not UTF-8 is one bad line
(skippable with ``skip_bad``), not the end of the file. A UTF-8 byte order mark at the start of a
line (Windows editors write one at the start of a file; ``cat a.jsonl b.jsonl`` puts it mid-file)
is dropped: it is never part of valid JSON.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, TypeVar

from pydantic import BaseModel, ValidationError

from flowmem.core.errors import InputError, Problem

M = TypeVar("M", bound=BaseModel)
BOM = "\ufeff"
MAX_INT_DIGITS = 4300  # Python's limit on converting text to int (sys.get_int_max_str_digits())


def dump_line(record: dict[str, object]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


@contextlib.contextmanager
def open_jsonl(path: str) -> Iterator[IO[bytes] | IO[str]]:
    """Open a JSONL file (``-`` for stdin) for :func:`read_jsonl`, as bytes.

    Raises:
        InputError: The file cannot be read.
    """
    if path == "-":
        yield getattr(sys.stdin, "buffer", sys.stdin)  # a replaced stdin (tests, embedding apps) may be text
        return
    try:
        handle = Path(path).open("rb")  # noqa: SIM115 (opened apart: only its own error is bad input)
    except OSError as exc:
        raise InputError(Problem(path, f"cannot be read: {exc.strerror or exc}")) from None
    with handle:
        yield handle


def read_jsonl(
    stream: Iterable[str] | Iterable[bytes],
    model: type[M],
    *,
    source: str = "<input>",
    skip_bad: bool = False,
    check: Callable[[M], str | None] | None = None,
    skipped: list[Problem] | None = None,
) -> Iterator[tuple[int, M]]:
    """Yield ``(line_number, record)`` for every non-blank line.

    Args:
        stream: The lines, as bytes (from :func:`open_jsonl`) or text.
        model: The record type every line is validated as.
        source: The file's name in messages.
        skip_bad: Skip a bad line instead of raising.
        check: A further rule for a valid record: returns what is wrong with it, or None.
        skipped: When given, every skipped line's problem is appended to it (to report them).

    Raises:
        InputError: A line is not UTF-8, not JSON or not a valid record (unless ``skip_bad``),
            naming the source, the line number and what was wrong.
    """
    lines: Iterable[str | bytes] = stream
    for number, line in enumerate(lines, 1):
        error, record = _parse(line, model, check)
        if error is not None:
            problem = Problem(f"{source} line {number}", error)
            if not skip_bad:
                raise InputError(problem)
            if skipped is not None:
                skipped.append(problem)
            continue
        if record is not None:
            yield number, record


def _parse(line: str | bytes, model: type[M], check: Callable[[M], str | None] | None) -> tuple[str | None, M | None]:
    """(what is wrong, None) for a bad line, (None, None) for a blank one, else (None, the record)."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            byte = f"byte 0x{line[exc.start]:02x} at offset {exc.start}"
            return f"is not UTF-8 text ({byte}); save the file as UTF-8", None
    line = line.removeprefix(BOM)
    if not line.strip():
        return None, None
    try:
        record = model.model_validate_json(line)
    except ValidationError as exc:
        return _describe(exc), None
    reason = check(record) if check is not None else None
    return (reason, None) if reason else (None, record)


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        loc = ".".join(str(p) for p in error["loc"]) or "line"
        message = error["msg"]
        if "number out of range" in message:  # pydantic-core refuses what Python could not convert
            message += f" (integers have at most {MAX_INT_DIGITS:,} digits; write a longer one as a string)"
        parts.append(f"{loc}: {message}")
    return "; ".join(parts)


def skipped_summary(skipped: list[Problem], shown: int = 3) -> str:
    """``skipped 2 bad lines: a.jsonl line 3: …; …`` for the end of an import that used ``skip_bad``."""
    if not skipped:
        return ""
    lines = "; ".join(p.render() for p in skipped[:shown])
    more = f"; and {len(skipped) - shown} more" if len(skipped) > shown else ""
    return f"skipped {len(skipped)} bad line{'s' if len(skipped) != 1 else ''}: {lines}{more}"


def write_jsonl(records: Iterable[dict[str, object]], stream: IO[str]) -> int:
    count = 0
    for record in records:
        stream.write(dump_line(record))
        count += 1
    return count
