"""The flowmem error tree.

Every error flowmem raises on purpose derives from :class:`FlowmemError`. Each class carries
the exit code the CLI uses for it: ``2`` for a user's mistake (bad config, flow, input or an
unreachable backend the user pointed us at), ``1`` for a failure while running.

```
FlowmemError
├── ConfigError              config files, presets, overrides, environment interpolation
├── FlowSyntaxError          a flow expression that does not parse
├── FlowValidationError      a flow that parses but cannot run (all problems together)
├── InputError               flow inputs that are missing, unknown or ill-typed
├── NotFoundError            a memory asked for by id that is not in the workspace
├── PluginError              a plugin module that cannot be imported
├── RegistryError            a duplicate or unknown registered name
├── BackendUnavailableError  a backend that cannot be reached or is not installed
│   └── StoreDamagedError    a store file that is damaged (named, with what to do)
├── DegradedError            an op degraded while strict (names op, kind, reason; what was written)
└── OpExecutionError         an op that failed while running (names op and flow id)
    ├── OpTimeoutError       an op that exceeded its timeout
    └── ContextKeyError      an op read a key nobody wrote
```
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flowmem.core.trace import Degradation


class FlowmemError(Exception):
    """Base class of every error flowmem raises on purpose."""

    exit_code: int = 1


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a config or a flow.

    Attributes:
        where: What the problem is in, e.g. ``flow 'personal_retrieve'`` or ``override 'op.x=1'``.
        message: What is wrong and what would be valid.
        detail: Optional extra lines (for example a caret under a column).
        inside: The included flow whose text the problem lies in (empty: the flow's own text or none).
    """

    where: str
    message: str
    detail: str = ""
    inside: str = ""

    def render(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        return f"{text}\n{self.detail}" if self.detail else text


class ProblemsError(FlowmemError):
    """An error made of one or more :class:`Problem` s, all reported together."""

    exit_code = 2
    summary = "invalid"

    def __init__(self, problems: Sequence[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem("", problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__(self._render())

    def _render(self) -> str:
        if len(self.problems) == 1:
            return self.problems[0].render()
        lines = [f"{len(self.problems)} problems {self.summary}:"]
        for i, problem in enumerate(self.problems, 1):
            rendered = problem.render().replace("\n", "\n   ")
            lines.append(f"{i:>2}. {rendered}")
        return "\n".join(lines)


class ConfigError(ProblemsError):
    """A config file, preset, override or environment variable is wrong."""

    summary = "in the configuration"


def caret_under(text: str, column: int, width: int = 100) -> str:
    """Two lines: ``text`` and a caret under ``column``; a long text is cut to ``width`` characters around it."""
    start = 0
    if len(text) > width:
        start = max(0, min(column - width // 2, len(text) - width))
    shown = text[start : start + width]
    lead = "…" if start > 0 else ""
    tail = "…" if start + width < len(text) else ""
    return f"    {lead}{shown}{tail}\n    {' ' * (len(lead) + column - start)}^"


class FlowSyntaxError(ProblemsError):
    """A flow expression does not parse. The message shows the text with a caret under the column."""

    summary = "in flow expressions"

    def __init__(self, text: str, column: int, message: str, where: str = "flow expression"):
        self.text = text
        self.column = column  # 0-based character offset into `text`
        caret = caret_under(text, column)
        super().__init__([Problem(where, f"{message} (column {column + 1})", caret)])


class FlowValidationError(ProblemsError):
    """A flow (or several) cannot run; every problem found is listed."""

    summary = "found before running"


class InputError(ProblemsError):
    """Flow inputs are missing, unknown or of the wrong type."""

    summary = "in the flow inputs"


class NotFoundError(FlowmemError):
    """A memory (or another named thing) asked for by id does not exist in the scope asked."""

    exit_code = 2


class WriteConflictError(FlowmemError):
    """A write refused because what it was prepared from changed under it: the user (or workspace) it writes
    about was forgotten meanwhile (:mod:`flowmem.vector_store.erasure`). Nothing of the write was stored."""

    exit_code = 2


class PluginError(FlowmemError):
    """A plugin module could not be imported."""

    exit_code = 2


class RegistryError(FlowmemError):
    """A name was registered twice, or looked up but never registered."""

    exit_code = 2


class BackendUnavailableError(FlowmemError):
    """A backend cannot be reached, or its optional dependency is not installed."""

    exit_code = 2


class StoreDamagedError(BackendUnavailableError):
    """A store's files are damaged (truncated, not a database, tables missing). Nothing was written to them."""

    advice = (
        "restore the file from a backup, or move it aside and import an export into a new store "
        "(`flowmem store import FILE -w WORKSPACE`)"
    )


class DegradedError(FlowmemError):
    """An op degraded (its LLM call failed, it timed out, it fell back to rules) in a strict run.

    Raised by ``app.run(..., strict=True)``, ``app.memories.add(..., strict=True)`` and
    ``flowmem ingest --strict`` (exit 1). The run stops right after the op that degraded, before the
    next op starts — so in the write flows, whose store write is their last op, nothing of that run is
    written. ``app.memories.add`` adds what earlier batches wrote (``partial``).

    Attributes:
        degradation: Which op, what kind, why, and what it would have done instead.
        flow_id: The run that stopped.
        partial: For ``memories.add``: the ``AddResult`` of the batches written before the stop (else ``None``).
    """

    exit_code = 1

    def __init__(self, message: str, degradation: Degradation, flow_id: str, partial: Any = None):
        self.degradation = degradation
        self.flow_id = flow_id
        self.partial = partial
        super().__init__(message)


class OpExecutionError(FlowmemError):
    """An op failed while running. The message names the op and the flow id."""

    exit_code = 1

    def __init__(self, op: str, flow_id: str, message: str, *, also_failed: Iterable[OpExecutionError] = ()):
        self.op = op
        self.flow_id = flow_id
        self.reason = message
        self.also_failed = list(also_failed)
        text = f"op '{op}' failed in flow run {flow_id}: {message}"
        for other in self.also_failed:
            text += f"\n  (in a parallel branch, op '{other.op}' also failed: {other.reason})"
        super().__init__(text)

    def with_also_failed(self, others: Iterable[OpExecutionError]) -> OpExecutionError:
        """A copy of this error that also reports errors of parallel branches."""
        clone = type(self).__new__(type(self))
        OpExecutionError.__init__(clone, self.op, self.flow_id, self.reason, also_failed=others)
        clone.__cause__ = self.__cause__
        return clone


class OpTimeoutError(OpExecutionError):
    """An op did not finish within its configured ``timeout``."""


class ContextKeyError(OpExecutionError, KeyError):
    """An op read a context key that no op wrote and no input provided."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return Exception.__str__(self)
