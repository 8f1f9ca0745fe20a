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


def parse_indexed_scores(
    text: str, count: int, *, low: float, high: float, slack: float = 0.0
) -> tuple[dict[int, float], int]:
    """Scores by item index from an LLM reply that scored a numbered list, and how many entries were unusable.

    Accepts ``{"0": 0.9, …}``, ``{"scores": {…}}``, ``[{"index": 0, "score": 0.9}, …]`` (also ``id`` /
    ``relevance``) and ``[0.9, 0.1, …]``. An entry is unusable when its index is not an integer in
    ``0..count-1`` or repeats, or its score is not a number within ``low - slack .. high + slack``;
    scores a little outside (within ``slack``) are clamped to ``low..high``. No JSON at all gives
    ``({}, 0)``: nothing scored, which callers report as unscored.

    Used by every op that asks an LLM to score the items of a list (``semantic_rank_op``,
    ``info_filter_op``), so all of them read replies the same way.
    """
    data = parse_json(text)
    if isinstance(data, dict) and isinstance(data.get("scores"), (dict, list)):
        data = data["scores"]
    pairs: list[tuple[Any, Any]] = []
    if isinstance(data, dict):
        pairs = list(data.items())
    elif isinstance(data, list):
        for i, item in enumerate(data):
            if isinstance(item, dict):
                pairs.append((item.get("index", item.get("id", i)), item.get("score", item.get("relevance"))))
            else:
                pairs.append((i, item))
    scores: dict[int, float] = {}
    bad = 0
    for key, value in pairs:
        try:
            index = int(str(key).strip().rstrip("."))
            score = float(value)
        except (TypeError, ValueError):
            bad += 1
            continue
        if not 0 <= index < count or not low - slack <= score <= high + slack or index in scores:
            bad += 1
            continue
        scores[index] = min(max(score, low), high)
    return scores, bad


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
