"""What happened in one flow run: per-op spans with timing, status, warnings and LLM usage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Usage:
    """LLM calls and tokens spent by an op (or a whole run)."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.llm_calls += other.llm_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, int]:
        return {
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }


class OpSpan:
    """One op occurrence's run. ``status`` is ``ok``, ``degraded``, ``failed``, ``timeout`` or ``cancelled``."""

    __slots__ = ("duration_ms", "notes", "op", "position", "start_ms", "status", "usage", "warnings")

    def __init__(self, op: str, position: int, start_ms: float):
        self.op = op
        self.position = position  # 1-based, in the order ops appear in the flow expression
        self.start_ms = start_ms
        self.duration_ms = 0.0
        self.status = "running"
        self.warnings: list[str] = []
        self.notes: dict[str, Any] = {}
        self.usage: Usage | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "op": self.op,
            "position": self.position,
            "start_ms": round(self.start_ms, 3),
            "duration_ms": round(self.duration_ms, 3),
            "status": self.status,
        }
        if self.warnings:
            data["warnings"] = list(self.warnings)
        if self.notes:
            data["notes"] = dict(self.notes)
        if self.usage is not None:
            data["usage"] = self.usage.to_dict()
        return data


@dataclass
class Trace:
    """The record of one flow run."""

    flow: str
    flow_id: str
    started_at: str
    spans: list[OpSpan] = field(default_factory=list)
    duration_ms: float = 0.0

    @property
    def usage(self) -> Usage:
        total = Usage()
        for span in self.spans:
            if span.usage is not None:
                total.add(span.usage)
        return total

    def to_dict(self) -> dict[str, Any]:
        return {
            "flow": self.flow,
            "flow_id": self.flow_id,
            "started_at": self.started_at,
            "duration_ms": round(self.duration_ms, 3),
            "usage": self.usage.to_dict(),
            "spans": [span.to_dict() for span in sorted(self.spans, key=lambda s: s.position)],
        }
