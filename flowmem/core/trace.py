"""What happened in one flow run: per-op spans with timing, status, warnings, degradations and LLM usage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The kinds of degradation (what went wrong), each with its plural for summaries ("2 LLM calls failed").
LLM_CALL_FAILED = "LLM call failed"
RUN_TIMED_OUT = "run timed out"
RUN_FAILED = "run failed"
WARNING = "warning"
_PLURALS = {
    LLM_CALL_FAILED: "LLM calls failed",
    RUN_TIMED_OUT: "runs timed out",
    RUN_FAILED: "runs failed",
    WARNING: "warnings",
}


@dataclass
class Degradation:
    """An op that did less than its best, and what it did instead.

    Attributes:
        op: The op's label in the flow.
        kind: What went wrong: ``"LLM call failed"`` (the op failed because its LLM call raised),
            ``"run timed out"``, ``"run failed"`` (the op raised for another reason), or ``"warning"``
            (the op went on but says part of its work used a fallback, e.g. an LLM reply it could not use).
        reason: Why (the first one, when several are counted together).
        fallback: What the op did instead (its declared ``degradation``), ``""`` when the reason says it.
        count: How many times this (op, kind) happened: failed LLM calls, op runs, or warnings.
    """

    op: str
    kind: str
    reason: str
    fallback: str = ""
    count: int = 1

    @property
    def key(self) -> tuple[str, str]:
        return (self.op, self.kind)

    @property
    def message(self) -> str:
        """The reason and what was done instead, as one warning line (without the op)."""
        return f"{self.reason}; {self.fallback}" if self.fallback else self.reason

    def summary(self) -> str:
        """One line: ``op: 2 LLM calls failed: <first reason>; <what was done instead>``."""
        kind = self.kind if self.count == 1 else _PLURALS.get(self.kind, f"× {self.kind}")
        return f"{self.op}: {self.count} {kind}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "kind": self.kind, "count": self.count, "reason": self.reason, "fallback": self.fallback}


def merge_degradations(into: list[Degradation], more: list[Degradation]) -> None:
    """Add ``more`` to ``into``: the same (op, kind) is counted together, keeping its first reason."""
    index = {d.key: d for d in into}
    for item in more:
        found = index.get(item.key)
        if found is None:
            found = index[item.key] = Degradation(item.op, item.kind, item.reason, item.fallback, 0)
            into.append(found)
        found.count += item.count


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

    __slots__ = (
        "degradations", "duration_ms", "failed_llm_calls", "flow", "notes", "op", "position", "start_ms", "status",
        "usage", "warnings",
    )  # fmt: skip

    def __init__(self, op: str, position: int, start_ms: float, flow: str = ""):
        self.op = op
        self.position = position  # 1-based, in the order ops appear in the expanded flow expression
        self.flow = flow  # the included flow the op was written in ("": the flow run itself)
        self.start_ms = start_ms
        self.duration_ms = 0.0
        self.status = "running"
        self.warnings: list[str] = []
        self.degradations: list[Degradation] = []
        self.failed_llm_calls: list[str] = []  # why each LLM call of the op raised, in order
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
        if self.flow:
            data["in_flow"] = self.flow
        if self.warnings:
            data["warnings"] = list(self.warnings)
        if self.degradations:
            data["degradations"] = [d.to_dict() for d in self.degradations]
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
