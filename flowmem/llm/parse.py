"""Tolerant reading of JSON from LLM replies: fenced blocks, bare JSON, JSON inside prose."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def parse_json(text: str) -> Any | None:
    """The first JSON value found in ``text``, or ``None``.

    Tries, in order: the whole text; each fenced code block; the first balanced ``{…}`` or ``[…]``
    span (so ``Sure! {"a": 1} hope that helps`` works). Trailing commas before ``}``/``]`` are
    forgiven, since small models write them.
    """
    if not text:
        return None
    candidates = [text.strip(), *(block.strip() for block in _FENCE.findall(text))]
    for candidate in candidates:
        value = _loads(candidate)
        if value is not None:
            return value
    for opener in "{[":
        span = _balanced(text, opener)
        if span is not None:
            value = _loads(span)
            if value is not None:
                return value
    return None


def _loads(candidate: str) -> Any | None:
    if not candidate:
        return None
    for attempt in (candidate, re.sub(r",\s*([}\]])", r"\1", candidate)):
        try:
            return json.loads(attempt)
        except (json.JSONDecodeError, ValueError):
            continue
    return None


def _balanced(text: str, opener: str) -> str | None:
    closer = "}" if opener == "{" else "]"
    start = text.find(opener)
    while start != -1:
        depth, in_string, escaped = 0, False, False
        for i in range(start, len(text)):
            char = text[i]
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char == opener:
                depth += 1
            elif char == closer:
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find(opener, start + 1)
    return None
