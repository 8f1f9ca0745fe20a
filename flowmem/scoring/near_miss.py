"""Near misses: memories an op dropped, with the reason — shown by ``flowmem run --explain``."""

from __future__ import annotations

from typing import Any

from flowmem.schema.memory import Memory


def near_miss(memory: Memory, op: str, reason: str) -> dict[str, Any]:
    """A JSON-ready record of a dropped memory: id, content, the op that dropped it, why, its scores so far."""
    return {
        "memory_id": memory.memory_id,
        "content": memory.content,
        "op": op,
        "reason": reason,
        "scores": dict(memory.scores),
    }
