"""What a flow run tells the outside world: OpenTelemetry spans, and run listeners (``flowmem serve``'s metrics).

**Spans.** flowmem instruments itself with ``opentelemetry-api`` only, as a library should: it makes spans when
the application has installed an OpenTelemetry SDK tracer provider (``opentelemetry-sdk``, ``pip install
'flowmem[otel]'``), and costs one check per run otherwise (no span objects, no attributes). Without
``opentelemetry-api`` installed it does nothing at all. Each run is one span, each op occurrence a child of it
(parallel branches run as sibling spans; an LLM client's own instrumentation nests under the op that called it):

- the run: ``"{gen_ai.operation.name} {flow}"``, e.g. ``search_memory personal_retrieve``. The operation follows
  OpenTelemetry's GenAI memory conventions: ``update_memory`` for a flow that writes memories, ``search_memory``
  for the others. Attributes: ``gen_ai.operation.name``, ``gen_ai.memory.scope`` (``user`` when the run has a
  user), ``flowmem.flow.name``, ``flowmem.flow.id``, ``flowmem.workspace_id``, ``flowmem.user.hash`` (the first
  16 hex digits of the user id's SHA-256: runs of one user correlate, the id is not shown; a guessable id can be
  guessed), and at the end ``flowmem.memories.count``, ``flowmem.memories.top_score`` (the best final score),
  ``flowmem.warnings``, ``flowmem.degradations``, ``gen_ai.usage.input_tokens``/``output_tokens`` (LLM calls'),
  ``error.type`` when it failed;
- each op: ``"op {label}"`` with ``flowmem.op.name``, ``flowmem.op.position``, ``flowmem.op.status`` (``ok``,
  ``degraded``, ``failed``, ``timeout``, ``cancelled``), ``flowmem.op.degradations``, and the op's numeric trace
  notes as ``flowmem.flow.op.note.<key>`` (a list is its length: ``dropped`` counts the near misses).

Never a query, a memory's content, a message or a secret: string notes (which may quote the query) are left out.

**Run listeners.** :func:`add_run_listener` registers a function called after every run with its
:class:`~flowmem.core.trace.Trace` and the name of the error it raised (``None``); ``flowmem serve`` counts op and
flow latencies with one. A listener must be quick and must not raise (it runs on the event loop).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from flowmem.core.trace import OpSpan, Trace
from flowmem.keys import MEMORIES

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

    from flowmem.flow.context import Context

RunListener = Callable[[Trace, "str | None"], None]
_listeners: list[RunListener] = []
_NOTHING = contextlib.nullcontext()


def add_run_listener(listener: RunListener) -> Callable[[], None]:
    """Call ``listener(trace, error_type)`` after every flow run of this process; returns its remover."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def run_ended(trace: Trace, error: BaseException | None) -> None:
    """Tell the run listeners (:func:`add_run_listener`) that a run ended."""
    if _listeners:
        kind = None if error is None else type(error).__name__
        for listener in list(_listeners):
            listener(trace, kind)


def _tracer() -> Tracer | None:
    """flowmem's tracer when an OpenTelemetry SDK provider is installed, else ``None`` (no spans, no cost)."""
    trace = _api[0] if _api else _import_api()
    if trace is None:
        return None
    # get_tracer_provider() looks up OTEL_PYTHON_TRACER_PROVIDER in os.environ on every call while no provider is
    # set (~2 us, most of an untraced run's telemetry cost): with none set and no such variable when the api was
    # imported, nobody collects spans. (An api without that global, or a get_tracer_provider replaced since, takes
    # the public call.)
    lookup = trace.get_tracer_provider
    if getattr(trace, "_TRACER_PROVIDER", trace) is None and not _api[1] and lookup.__module__ == trace.__name__:
        return None
    provider = lookup()
    if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return None
    if _cached[0] is not provider:  # getting a tracer costs ~20 µs: once per provider
        _cached[:] = [provider, provider.get_tracer("flowmem")]
    tracer: Tracer = _cached[1]
    return tracer


_cached: list[Any] = [None, None]  # [provider, its tracer]
# [opentelemetry.trace or None without opentelemetry-api, whether OTEL_PYTHON_TRACER_PROVIDER names a provider],
# found at the first run
_api: list[Any] = []


def _import_api() -> Any:
    try:
        from opentelemetry import trace as api
    except ImportError:  # pragma: no cover - opentelemetry-api is optional
        api = None  # type: ignore[assignment]
    # the api's own variable (opentelemetry.environment_variables): a provider it loads at the first lookup
    _api[:] = [api, "OTEL_PYTHON_TRACER_PROVIDER" in os.environ]
    return api


class RunTelemetry:
    """The spans of one run; :meth:`start` gives ``None`` when nobody collects spans."""

    __slots__ = ("tracer",)

    def __init__(self, tracer: Tracer):
        self.tracer = tracer

    @classmethod
    def start(cls) -> RunTelemetry | None:
        tracer = _tracer()
        return None if tracer is None else cls(tracer)

    @contextlib.contextmanager
    def run(self, ctx: Context, writes: bool) -> Iterator[None]:
        """The run's span, current while the ops run (so theirs are its children)."""
        operation = "update_memory" if writes else "search_memory"
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": operation,
            "flowmem.flow.name": ctx.flow,
            "flowmem.flow.id": ctx.flow_id,
        }
        workspace, user = ctx.inputs.get("workspace_id"), ctx.inputs.get("user_id")
        if isinstance(workspace, str):
            attributes["flowmem.workspace_id"] = workspace
        if isinstance(user, str) and user:
            attributes["gen_ai.memory.scope"] = "user"
            attributes["flowmem.user.hash"] = hashlib.sha256(user.encode()).hexdigest()[:16]
        with self.tracer.start_as_current_span(f"{operation} {ctx.flow}", attributes=attributes) as span:
            try:
                yield
            except BaseException as exc:
                span.set_attribute("error.type", type(exc).__name__)
                raise
            finally:
                _end_of_run(span, ctx)

    def op(self, op: OpSpan) -> contextlib.AbstractContextManager[Any]:
        """An op's span, current while it runs; its outcome comes from ``op`` (flowmem's own trace span)."""
        return self._op(op)

    @contextlib.contextmanager
    def _op(self, op: OpSpan) -> Iterator[None]:
        attributes: dict[str, Any] = {"flowmem.op.name": op.op, "flowmem.op.position": op.position}
        with self.tracer.start_as_current_span(f"op {op.op}", attributes=attributes) as span:
            try:
                yield
            finally:
                span.set_attribute("flowmem.op.status", op.status)
                span.set_attribute("flowmem.op.degradations", sum(d.count for d in op.degradations))
                for key, value in _numeric_notes(op.notes):
                    span.set_attribute(f"flowmem.flow.op.note.{key}", value)


def op_span(telemetry: RunTelemetry | None, op: OpSpan) -> contextlib.AbstractContextManager[Any]:
    """``telemetry.op(op)``, or a reusable empty context when no spans are collected."""
    return _NOTHING if telemetry is None else telemetry.op(op)


def _end_of_run(span: Span, ctx: Context) -> None:
    memories = ctx.get(MEMORIES) or []
    span.set_attribute("flowmem.memories.count", len(memories))
    finals = [m.scores["final"] for m in memories if "final" in m.scores]
    if finals:
        span.set_attribute("flowmem.memories.top_score", max(finals))
    span.set_attribute("flowmem.warnings", len(ctx.warnings))
    span.set_attribute("flowmem.degradations", sum(d.count for d in ctx.degradations))
    usage = ctx.trace.usage
    if usage.llm_calls:
        span.set_attribute("gen_ai.usage.input_tokens", usage.prompt_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", usage.completion_tokens)


def _numeric_notes(notes: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, int | float]]:
    """Counts and numbers of an op's notes (a list counts as its length; one level of dicts); never text."""
    for key, value in notes.items():
        if isinstance(value, bool) or value is None or isinstance(value, str):
            continue
        if isinstance(value, int | float):
            yield f"{prefix}{key}", value
        elif isinstance(value, list | tuple):
            yield f"{prefix}{key}", len(value)
        elif isinstance(value, dict) and not prefix:
            yield from _numeric_notes(value, f"{key}.")
