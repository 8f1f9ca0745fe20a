"""The size limits on texts (``limits`` in the config): the one place they are checked.

Flow inputs are checked when a run's inputs are validated (every transport, before any op runs);
JSONL files are checked line by line as they are read, so a too-long line is named by its number
and ``--skip-bad`` can skip it. Why a long text is refused rather than cut or split: see
:class:`flowmem.config.schema.Limits`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flowmem.config.schema import Limits
from flowmem.core.errors import Problem
from flowmem.schema.memory import Memory, Message


def too_long(what: str, text: str, limit: int, setting: str) -> str | None:
    """What is wrong with ``text`` when it is longer than ``limit`` characters, else None."""
    if len(text) <= limit:
        return None
    return (
        f"{what} is {len(text):,} characters long; at most {limit:,} are accepted: "
        f"split the text, or raise the limit limits.{setting}"
    )


def input_problems(values: Mapping[str, Any], limits: Limits, where: str) -> list[Problem]:
    """Problems with the validated flow inputs ``values``: a query or a message content too long."""
    problems: list[Problem] = []
    query = values.get("query")
    if isinstance(query, str):
        reason = too_long("input 'query'", query, limits.query_max_chars, "query_max_chars")
        if reason:
            problems.append(Problem(where, reason))
    for index, message in enumerate(values.get("messages") or []):
        if isinstance(message, Message):
            reason = too_long(f"input 'messages' [{index}] content", message.content, limits.message_max_chars,
                              "message_max_chars")  # fmt: skip
            if reason:
                problems.append(Problem(where, reason))
    return problems


def message_check(limits: Limits) -> Callable[[Message], str | None]:
    """A ``check`` for :func:`flowmem.schema.jsonl.read_jsonl` of messages."""
    return lambda m: too_long("content", m.content, limits.message_max_chars, "message_max_chars")


def memory_check(limits: Limits) -> Callable[[Memory], str | None]:
    """A ``check`` for :func:`flowmem.schema.jsonl.read_jsonl` of memories."""
    return lambda m: too_long("content", m.content, limits.memory_max_chars, "memory_max_chars")
