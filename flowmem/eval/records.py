"""Reading an evaluation's JSONL file of records with ids (scenarios, questions): every bad line at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from flowmem.core.errors import InputError, Problem

R = TypeVar("R", bound=BaseModel)


def load_records(path: str | Path, model: type[R], noun: str) -> list[R]:
    """The records of a JSONL file (a byte order mark is fine); every bad line is reported at once, with its number.

    Args:
        model: The record type (it has an ``id``).
        noun: What a record is called in messages, e.g. ``"question"``.

    Raises:
        InputError: The file is missing or empty, lines are not records, or two share an id.
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(Problem(str(path), f"cannot read the {noun}s: {exc.strerror or exc}")) from None
    records: list[R] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = model.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            problems.append(Problem(f"{path}:{number}", f"not JSON: {exc.msg}"))
            continue
        except ValidationError as exc:
            errors = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
            problems.append(Problem(f"{path}:{number}", errors))
            continue
        identity = str(getattr(record, "id"))  # noqa: B009 (every record model has an id; R is any BaseModel)
        if identity in seen:
            problems.append(Problem(f"{path}:{number}", f"{noun} id {identity!r} is used twice"))
        seen.add(identity)
        records.append(record)
    if not records and not problems:
        problems.append(Problem(str(path), f"holds no {noun}s"))
    if problems:
        raise InputError(problems)
    return records
