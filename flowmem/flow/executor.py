"""Running a compiled flow: sequences in order, parallel branches concurrently, every op timed.

A failing op fails the run with an :class:`~flowmem.core.errors.OpExecutionError` naming the op and
the run's flow id, unless the op declares a ``degradation``: then the failure becomes a warning and
a :class:`~flowmem.core.trace.Degradation` (trace and response) and the op's ``degrade`` runs instead. A
strict run (``strict=True``) raises :class:`~flowmem.core.errors.DegradedError` instead of degrading, and
also right after an op that reported a degradation itself (``ctx.warn``), before the next op starts.
When a parallel branch fails, the other branches are cancelled and every failure is reported, never dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from time import perf_counter
from typing import Any

from flowmem.core.concurrency import gather_cancelling
from flowmem.core.errors import DegradedError, FlowmemError, OpExecutionError, OpTimeoutError, WriteConflictError
from flowmem.core.trace import LLM_CALL_FAILED, RUN_FAILED, RUN_TIMED_OUT, Degradation, OpSpan
from flowmem.flow.compile import CompiledFlow, OpStep, ParStep, SeqStep, Step
from flowmem.flow.context import Context, OpContext, describe_error
from flowmem.flow.op import BackendResolver
from flowmem.flow.response import Response
from flowmem.flow.telemetry import RunTelemetry, run_ended


async def run_flow(
    flow: CompiledFlow,
    inputs: Mapping[str, Any],
    backends: BackendResolver,
    *,
    flow_id: str | None = None,
    strict: bool = False,
) -> Response:
    """Run ``flow`` once.

    Args:
        strict: Stop with :class:`DegradedError` at the first op that degrades, right after it (no later op runs).

    Raises:
        InputError: The inputs are missing, unknown or ill-typed (nothing ran).
        OpExecutionError: An op failed and has no degradation.
        DegradedError: ``strict`` and an op degraded.
        FlowmemError: A backend the user configured is unavailable.
    """
    values = flow.prepare_inputs(inputs)
    await fence_writes(flow, values, backends)
    ctx = Context(flow.name, values, writers=flow.writers, flow_id=flow_id, secrets=flow.secrets)
    telemetry = RunTelemetry.start()  # None unless an OpenTelemetry SDK collects spans (flowmem.flow.telemetry)
    runner = _Runner(ctx, backends, strict, telemetry)
    error: BaseException | None = None
    try:
        if telemetry is None:
            await runner.run(flow.root)
        else:
            with telemetry.run(ctx, writes=bool(flow.stores_written)):
                await runner.run(flow.root)
    except BaseException as exc:
        error = exc
        raise
    finally:
        ctx.trace.duration_ms = (perf_counter() - runner.started) * 1000.0
        run_ended(ctx.trace, error)
    return Response.from_context(ctx, flow.output_keys)


WRITE_FENCES = "write_fences"


async def fence_writes(flow: CompiledFlow, values: dict[str, Any], backends: BackendResolver) -> None:
    """A flow that writes to a store reads each such store's erasure fence for its user before any op reads
    (:mod:`flowmem.vector_store.erasure`): its writes are then refused if the user is forgotten meanwhile.

    ``values[WRITE_FENCES]`` becomes {vector store name: fence}; fences the caller gave are kept (an earlier
    flow's, whose reads this one's writes depend on)."""
    from flowmem.vector_store.base import VectorStore

    given = values.get(WRITE_FENCES) or {}
    names = flow.stores_written  # found once, when the flow was compiled
    workspace, user = values.get("workspace_id"), values.get("user_id")
    if not names or not isinstance(workspace, str):
        return
    fences = dict(given)
    for name in sorted(names - set(given)):
        store = backends("vector_store", name)
        if isinstance(store, VectorStore):
            fences[name] = await store.fence(workspace, [user] if isinstance(user, str) and user else [])
    values[WRITE_FENCES] = fences


class _Runner:
    __slots__ = ("backends", "ctx", "started", "strict", "telemetry")

    def __init__(
        self, ctx: Context, backends: BackendResolver, strict: bool = False, telemetry: RunTelemetry | None = None
    ):
        self.ctx = ctx
        self.backends = backends
        self.strict = strict
        self.telemetry = telemetry
        self.started = perf_counter()

    async def run(self, step: Step) -> None:
        if type(step) is OpStep:
            started = perf_counter()
            offset = (started - self.started) * 1000.0
            span = OpSpan(step.label, step.position, offset, step.via[-1] if step.via else "")
            self.ctx.trace.spans.append(span)
            if self.telemetry is None:  # no span context to enter and leave per op untraced (bench_engine)
                await self.run_op(step, span, started)
            else:
                with self.telemetry.op(span):
                    await self.run_op(step, span, started)
        elif type(step) is SeqStep:
            for child in step.steps:
                await self.run(child)
        else:
            assert isinstance(step, ParStep)
            await self.run_parallel(step)

    async def run_op(self, step: OpStep, span: OpSpan, started: float) -> None:
        setting = step.setting
        op = setting.op_cls(setting.params, label=step.label, backends=self.backends, backend_names=step.backend_names)
        view = OpContext(self.ctx, op, span)
        try:
            if step.timeout is None:
                await op.execute(view)
            else:
                await asyncio.wait_for(op.execute(view), step.timeout)
            span.status = "ok"
        except asyncio.CancelledError:
            span.status = "cancelled"
            raise
        except OpExecutionError:
            span.status = "failed"  # the op broke its own contract (undeclared key, missing key): a bug
            raise
        except WriteConflictError:
            span.status = "failed"  # a forget won over this run's writes: never degraded into a write that goes on
            raise
        except Exception as exc:
            error = self._error(step, exc, perf_counter() - started)
            if op.degradation is None:
                span.status = "timeout" if isinstance(error, OpTimeoutError) else "failed"
                if isinstance(exc, FlowmemError) and not isinstance(exc, OpExecutionError):
                    raise  # e.g. an unreachable backend: the user's to fix, reported as is
                raise error from exc
            span.status = "degraded"
            view.report(self._degradation(step, span, error, op.degradation))
            if self.strict:
                raise self._strict_stop(step, span) from exc
            try:
                await op.degrade(view, exc)
            except Exception as degrade_exc:
                also = self.ctx.redact(repr(degrade_exc))
                raise OpExecutionError(
                    step.label, self.ctx.flow_id, f"{error.reason}, and its degradation failed too: {also}"
                ) from degrade_exc
        finally:
            span.duration_ms = (perf_counter() - started) * 1000.0
        if self.strict and span.degradations:
            raise self._strict_stop(step, span)  # the op went on with a fallback (ctx.warn); stop before the next

    def _degradation(self, step: OpStep, span: OpSpan, error: OpExecutionError, fallback: str) -> Degradation:
        if isinstance(error, OpTimeoutError):
            return Degradation(step.label, RUN_TIMED_OUT, error.reason, fallback)
        if span.failed_llm_calls:  # the op failed because its LLM call did
            return Degradation(step.label, LLM_CALL_FAILED, error.reason, fallback, len(span.failed_llm_calls))
        return Degradation(step.label, RUN_FAILED, error.reason, fallback)

    def _strict_stop(self, step: OpStep, span: OpSpan) -> DegradedError:
        first = span.degradations[0]
        message = f"strict: op '{step.label}' degraded in flow run {self.ctx.flow_id}: {first.kind}: {first.message}"
        return DegradedError(message, first, self.ctx.flow_id)

    def _error(self, step: OpStep, exc: Exception, elapsed: float) -> OpExecutionError:
        # An op's own TimeoutError (say, from an HTTP client) is an ordinary failure; only the
        # configured timeout expiring is an OpTimeoutError.
        if isinstance(exc, asyncio.TimeoutError) and step.timeout is not None and elapsed >= step.timeout * 0.99:
            return OpTimeoutError(step.label, self.ctx.flow_id, f"timed out after {step.timeout:g} s")
        return OpExecutionError(step.label, self.ctx.flow_id, self.ctx.redact(describe_error(exc)))

    async def run_parallel(self, step: ParStep) -> None:
        await gather_cancelling((self.run(branch) for branch in step.branches), combine=_report_all)


def _report_all(first: BaseException, others: list[BaseException]) -> BaseException:
    """The error of a parallel step: the first branch's, naming the ops of the others that failed too."""
    also = [e for e in others if isinstance(e, OpExecutionError)]
    if isinstance(first, OpExecutionError) and also:
        return first.with_also_failed(also)  # keeps first's __cause__
    return first
