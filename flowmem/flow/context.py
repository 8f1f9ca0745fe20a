"""The context of one flow run, and the view of it each op gets.

A :class:`Context` holds the run's inputs, the values ops write, the warnings and the trace.
Ops never see it directly: each op occurrence gets an :class:`OpContext` that lets it read only
the keys it declares in ``reads``/``optional_reads``/``writes`` and write only its ``writes``.
That keeps the declarations honest, which is what flow validation relies on.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Collection, Mapping
from datetime import datetime, timezone
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, overload

from flowmem.core.errors import ContextKeyError, OpExecutionError
from flowmem.core.redact import redact_text
from flowmem.core.trace import WARNING, Degradation, OpSpan, Trace, Usage

if TYPE_CHECKING:
    from typing_extensions import deprecated

    from flowmem.flow.op import Op
    from flowmem.keys import Key, ReadableKey
else:

    def deprecated(message: str) -> Any:  # only type checkers read it: no runtime warning, no dependency
        return lambda function: function


T = TypeVar("T")


def new_flow_id() -> str:
    """A fresh id for every run (the public implementation shared one id across contexts)."""
    return uuid.uuid4().hex


class Context:
    """Everything one flow run reads and writes.

    Args:
        flow: The flow's name.
        inputs: The validated inputs of the run.
        writers: For messages: which ops of the flow write each key.
        flow_id: The run's id; a fresh one when not given.
        secrets: The config's secret values: every warning and degradation is recorded without them (a
            server's error may quote the API key it was sent).
    """

    __slots__ = ("_data", "degradations", "flow", "flow_id", "inputs", "secrets", "trace", "warnings", "writers")

    def __init__(
        self,
        flow: str,
        inputs: Mapping[str, Any],
        *,
        writers: Mapping[str, tuple[str, ...]] | None = None,
        flow_id: str | None = None,
        secrets: Collection[str] = (),
    ):
        self.flow = flow
        self.secrets = frozenset(secrets)
        self.flow_id = flow_id or new_flow_id()
        self.inputs: Mapping[str, Any] = MappingProxyType(dict(inputs))
        self.writers: Mapping[str, tuple[str, ...]] = writers or {}
        self._data: dict[str, Any] = dict(inputs)
        self.warnings: list[str] = []
        self.degradations: list[Degradation] = []  # the same events as `warnings`, structured
        self.trace = Trace(flow, self.flow_id, datetime.now(timezone.utc).isoformat(timespec="milliseconds"))

    def __contains__(self, key: object) -> bool:
        return key in self._data

    @overload
    def get(self, key: ReadableKey[T]) -> T | None: ...
    @overload
    def get(self, key: str, default: Any = None) -> Any: ...  # the engine's own reads by name (outputs, inputs)
    def get(self, key: Any, default: Any = None) -> Any:
        return self._data.get(key, default)

    def require(self, key: str, reader: str = "") -> Any:
        """The value of ``key``; a :class:`ContextKeyError` naming who should have written it."""
        try:
            return self._data[key]
        except KeyError:
            raise self._missing(key, reader) from None

    def set(self, key: str, value: Any) -> None:
        self._data[key] = value

    def redact(self, text: str) -> str:
        """``text`` without the run's secrets and URL credentials (see :mod:`flowmem.core.redact`)."""
        return redact_text(text, self.secrets)

    def _missing(self, key: str, reader: str) -> ContextKeyError:
        writers = self.writers.get(key, ())
        if writers:
            why = f"it is written by {', '.join(writers)}, which did not run before {reader or 'this read'}"
        elif key in self.inputs or key in self._data:
            why = "it was removed"
        else:
            why = f"no op in flow '{self.flow}' writes it and it was not given as an input"
        return ContextKeyError(reader or "?", self.flow_id, f"context key '{key}' is missing: {why}")


class OpContext:
    """The view of a :class:`Context` that one op occurrence gets.

    Reads are limited to the op's declared ``reads``, ``optional_reads`` and ``writes``;
    writes to its ``writes``. Warnings go to the op's trace span and the response.
    """

    __slots__ = ("_ctx", "_op", "span")

    def __init__(self, ctx: Context, op: Op, span: OpSpan):
        self._ctx = ctx
        self._op = op
        self.span = span

    # -- identity ----------------------------------------------------------------------------
    @property
    def flow(self) -> str:
        return self._ctx.flow

    @property
    def flow_id(self) -> str:
        return self._ctx.flow_id

    @property
    def inputs(self) -> Mapping[str, Any]:
        return self._ctx.inputs

    # -- reading and writing -----------------------------------------------------------------
    # A `Key` (flowmem.keys) types the value for mypy: `ctx[MEMORIES]` is a `list[Memory]`. A plain string is `Any`,
    # and a Key used with a value of another type falls through to that overload: mypy's `deprecated` error code
    # (enabled for flowmem's own code) reports both.
    @overload
    def __getitem__(self, key: ReadableKey[T]) -> T: ...
    @overload
    @deprecated("untyped: a plain string key, or a value not of the Key's type (use a flowmem.keys.Key and its type)")
    def __getitem__(self, key: str) -> Any: ...
    def __getitem__(self, key: Any) -> Any:
        self._check_read(key)
        return self._ctx.require(key, self._op.label)

    @overload
    def get(self, key: ReadableKey[T]) -> T | None: ...
    @overload
    def get(self, key: ReadableKey[T], default: T) -> T: ...
    @overload
    @deprecated("untyped: a plain string key, or a value not of the Key's type (use a flowmem.keys.Key and its type)")
    def get(self, key: str, default: Any = None) -> Any: ...
    def get(self, key: Any, default: Any = None) -> Any:
        self._check_read(key)
        return self._ctx.get(key, default)

    def __contains__(self, key: str) -> bool:
        self._check_read(key)
        return key in self._ctx

    @overload
    def __setitem__(self, key: Key[T], value: T) -> None: ...
    @overload
    @deprecated("untyped: a plain string key, or a value not of the Key's type (use a flowmem.keys.Key and its type)")
    def __setitem__(self, key: str, value: Any) -> None: ...
    def __setitem__(self, key: str, value: Any) -> None:
        writes = self._op.keys.writes
        if key not in writes:
            raise OpExecutionError(
                self._op.label,
                self._ctx.flow_id,
                f"wrote context key '{key}', which {type(self._op).__name__} does not declare in `writes` "
                f"(declared: {', '.join(writes) or 'none'})",
            )
        self._ctx.set(key, value)

    def _check_read(self, key: str) -> None:
        op = self._op
        keys = op.keys
        if key in keys.reads or key in keys.optional_reads or key in keys.writes:
            return
        declared = ", ".join((*keys.reads, *keys.optional_reads)) or "none"
        raise OpExecutionError(
            op.label,
            self._ctx.flow_id,
            f"read context key '{key}', which {type(op).__name__} does not declare in `reads` or "
            f"`optional_reads` (declared: {declared})",
        )

    # -- reporting ---------------------------------------------------------------------------
    def warn(self, message: str) -> None:
        """Record a warning in the trace and the response (a degradation the user should see).

        It is counted as a :class:`~flowmem.core.trace.Degradation` of kind ``"warning"`` with ``message`` as its
        reason; say in ``message`` what was done instead.
        """
        self.report(Degradation(self._op.label, WARNING, message))

    def report(self, degradation: Degradation) -> None:
        """Record a degradation: structured (trace span, ``response.degradations``) and as a warning line."""
        redact = self._ctx.redact
        degradation = dataclasses.replace(
            degradation, reason=redact(degradation.reason), fallback=redact(degradation.fallback)
        )
        self.span.degradations.append(degradation)
        self.span.warnings.append(degradation.message)
        self._ctx.degradations.append(degradation)
        self._ctx.warnings.append(f"{self._op.label}: {degradation.message}")

    def llm_call_failed(self, error: BaseException) -> None:
        """Count an LLM call of this op that raised (the executor then reports the op's degradation as one)."""
        self.span.failed_llm_calls.append(self._ctx.redact(describe_error(error)))

    def note(self, key: str, value: Any) -> None:
        """Record a fact about this op's run in its trace span (e.g. which scorer it used)."""
        self.span.notes[key] = value

    def record_usage(self, llm_calls: int = 1, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        """Count LLM calls and tokens against this op; they add up in the trace and response."""
        if self.span.usage is None:
            self.span.usage = Usage()
        self.span.usage.add(Usage(llm_calls, prompt_tokens, completion_tokens))


def describe_error(error: BaseException) -> str:
    """``TypeName: message`` — how warnings and degradations name an exception."""
    return f"{type(error).__name__}: {error}"


__all__ = ["Context", "OpContext", "describe_error", "new_flow_id"]
