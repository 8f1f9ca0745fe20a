"""What a flow run returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic_core import to_jsonable_python

from flowmem.core.trace import Degradation, Trace, Usage
from flowmem.flow.context import Context
from flowmem.keys import ANSWER, MEMORIES, ReadableKey
from flowmem.schema.memory import Memory

T = TypeVar("T")


@dataclass
class Response:
    """The result of one flow run.

    Attributes:
        flow: The flow's name.
        flow_id: The run's id (also in every error and log line of the run).
        answer: Text for people or for an LLM prompt (the ``answer`` key), ``""`` if no op wrote one.
        memories: The memories the flow returned (the ``memories`` key), each with its scores.
        outputs: The flow's declared extra outputs (``flow.<name>.outputs``), by name; :meth:`output` reads one typed.
        warnings: Degradations and other things the caller should know, each prefixed by the op.
        degradations: The same degradations, structured (op, kind, reason, fallback, count).
        trace: Per-op timing, status, warnings and LLM usage.
        output_keys: Each output's name → the context key it holds, when the flow renamed it (``{name: key}``);
            a name not here holds the key of that name.
    """

    flow: str
    flow_id: str
    answer: str = ""
    memories: list[Memory] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    degradations: list[Degradation] = field(default_factory=list)
    trace: Trace | None = None
    output_keys: dict[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def from_context(cls, ctx: Context, outputs: Mapping[str, str]) -> Response:
        """The response of the run ``ctx``; ``outputs``: each output's name → the context key it returns."""
        answer = ctx.get(ANSWER)
        return cls(
            flow=ctx.flow,
            flow_id=ctx.flow_id,
            answer="" if answer is None else str(answer),
            memories=list(ctx.get(MEMORIES) or []),
            outputs={name: ctx.get(key) for name, key in outputs.items()},
            output_keys={name: key for name, key in outputs.items() if name != key},
            warnings=list(ctx.warnings),
            degradations=list(ctx.degradations),
            trace=ctx.trace,
        )

    def output(self, key: ReadableKey[T]) -> T | None:
        """The declared output ``key`` with its type (``response.output(MEMORY_ACTIONS)``: ``list[MemoryAction]``),
        found by the key it holds whatever the flow named it; ``None`` when no op of the run wrote it or the flow
        does not declare it (``personal_context``'s ``context_messages`` holds ``RECENT_MESSAGES``, not
        ``CONTEXT_MESSAGES``)."""
        wanted = str(key)
        names = [name for name in self.outputs if self.output_keys.get(name, name) == wanted]
        value = self.outputs.get(names[0]) if names else None
        return None if value is None else key.cast(value)

    @property
    def usage(self) -> Usage:
        """LLM calls and tokens of the whole run."""
        return self.trace.usage if self.trace else Usage()

    def to_dict(self, *, trace: bool = True) -> dict[str, Any]:
        """A JSON-ready dict (datetimes as ISO text, models as dicts)."""
        data: dict[str, Any] = {
            "flow": self.flow,
            "flow_id": self.flow_id,
            "answer": self.answer,
            "memories": to_jsonable_python(self.memories, fallback=str),
            "outputs": to_jsonable_python(self.outputs, fallback=str),
            "warnings": list(self.warnings),
            "usage": self.usage.to_dict(),
        }
        if trace and self.trace is not None:
            data["trace"] = to_jsonable_python(self.trace.to_dict(), fallback=str)
        return data
