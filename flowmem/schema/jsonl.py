"""JSON Lines for memories and messages: one record per line, errors name the line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, TypeVar

from pydantic import BaseModel, ValidationError

from flowmem.errors import InputError, Problem

M = TypeVar("M", bound=BaseModel)


def dump_line(record: dict[str, object]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def read_jsonl(
    stream: Iterable[str], model: type[M], *, source: str = "<input>", skip_bad: bool = False
) -> Iterator[tuple[int, M]]:
    """Yield ``(line_number, record)`` for every non-blank line.

    Raises:
        InputError: A line is not JSON or not a valid record (unless ``skip_bad``), naming the
            source, the line number and what was wrong.
    """
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            record = model.model_validate_json(line)
        except ValidationError as exc:
            if skip_bad:
                continue
            raise InputError(Problem(f"{source} line {number}", _describe(exc))) from None
        yield number, record


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        loc = ".".join(str(p) for p in error["loc"]) or "line"
        parts.append(f"{loc}: {error['msg']}")
    return "; ".join(parts)


def write_jsonl(records: Iterable[dict[str, object]], stream: IO[str]) -> int:
    count = 0
    for record in records:
        stream.write(dump_line(record))
        count += 1
    return count
