"""Helpers for error messages that say what would have been valid."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ``"; did you mean 'x'?"`` for the closest choice, or ``""`` when none is close."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def one_of(choices: Iterable[str], *, limit: int = 40) -> str:
    """Render a sorted list of valid choices for a message: ``"valid: a, b, c"``."""
    items = sorted(set(choices))
    if not items:
        return "none are available"
    shown = ", ".join(items[:limit])
    if len(items) > limit:
        shown += f", … ({len(items) - limit} more)"
    return f"valid: {shown}"


def unknown(kind: str, name: str, choices: Iterable[str]) -> str:
    """A complete "unknown X" message with a suggestion and the valid choices."""
    choices = list(choices)
    return f"unknown {kind} '{name}'{did_you_mean(name, choices)} ({one_of(choices)})"


def shown(value: object, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters with ``…`` and its length, so a 5 MB value stays a short message."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}… ({len(text):,} characters)"
