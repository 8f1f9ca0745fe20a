"""Running flows: concurrency, timing, failures that are never swallowed, timeouts, degradation."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from flowmem import App, Op, OpContext, OpParams
from flowmem.core.errors import ContextKeyError, InputError, OpExecutionError, OpTimeoutError


def app_with(flows: dict[str, str], **op_config: Any) -> App:
    return App(config={"flow": {n: {"flow_content": f} for n, f in flows.items()}, "op": op_config})


def test_parallel_branches_run_concurrently() -> None:
    with app_with({"f": "sleep_op | sleep_op"}, sleep_op={"params": {"ms": 200}}) as app:
        app.run_sync("f")  # warm up
        started = time.perf_counter()
        response = app.run_sync("f")
        elapsed = time.perf_counter() - started
    assert elapsed < 0.300, f"two 200 ms branches took {elapsed * 1000:.0f} ms"
    assert [s.status for s in response.trace.spans] == ["ok", "ok"]  # type: ignore[union-attr]
    assert all(s.duration_ms >= 195 for s in response.trace.spans)  # type: ignore[union-attr]


def test_sequence_runs_in_order_and_parallel_joins_before_the_next_step(register: Callable[..., Any]) -> None:
    order: list[str] = []

    class Mark(Op):
        class Params(OpParams):
            tag: str = "x"
            ms: float = 0

        params: Params

        async def execute(self, ctx: OpContext) -> None:
            await asyncio.sleep(self.params.ms / 1000)
            order.append(self.params.tag)

    register(Mark, "mark_op")
    config = {
        "flow": {"f": {"flow_content": "first_op >> (slow_op | fast_op) >> last_op"}},
        "op": {
            "first_op": {"backend": "mark_op", "params": {"tag": "first"}},
            "slow_op": {"backend": "mark_op", "params": {"tag": "slow", "ms": 50}},
            "fast_op": {"backend": "mark_op", "params": {"tag": "fast"}},
            "last_op": {"backend": "mark_op", "params": {"tag": "last"}},
        },
    }
    with App(config=config) as app:
        response = app.run_sync("f")
    assert order == ["first", "fast", "slow", "last"]
    assert [s.op for s in response.trace.spans] == ["first_op", "slow_op", "fast_op", "last_op"]  # type: ignore[union-attr]


def test_failing_op_names_the_op_and_the_flow_id() -> None:
    app = app_with({"f": "noop_op >> fail_op"}, fail_op={"params": {"message": "disk on fire"}})
    with app, pytest.raises(OpExecutionError) as info:
        app.run_sync("f")
    error = info.value
    assert error.op == "fail_op"
    assert len(error.flow_id) == 32
    assert f"op 'fail_op' failed in flow run {error.flow_id}: RuntimeError: disk on fire" in str(error)
    assert isinstance(error.__cause__, RuntimeError)


def test_parallel_failure_is_raised_and_cancels_siblings() -> None:
    with app_with({"f": "fail_op | sleep_op"}, sleep_op={"params": {"ms": 5000}}) as app:
        started = time.perf_counter()
        with pytest.raises(OpExecutionError, match="op 'fail_op' failed"):
            app.run_sync("f")
        assert time.perf_counter() - started < 2.0


def test_every_parallel_failure_is_reported() -> None:
    config = {
        "flow": {"f": {"flow_content": "a_fail_op | b_fail_op"}},
        "op": {
            "a_fail_op": {"backend": "fail_op", "params": {"message": "first"}},
            "b_fail_op": {"backend": "fail_op", "params": {"message": "second"}},
        },
    }
    with App(config=config) as app, pytest.raises(OpExecutionError) as info:
        app.run_sync("f")
    text = str(info.value)
    assert "first" in text and "second" in text
    assert "in a parallel branch, op 'b_fail_op' also failed" in text


def test_timeout() -> None:
    app = app_with({"f": "sleep_op"}, sleep_op={"params": {"ms": 2000}, "timeout": 0.05})
    with app, pytest.raises(OpTimeoutError, match=r"op 'sleep_op' failed in flow run \w+: timed out after 0.05 s"):
        app.run_sync("f")


def test_degradation_is_a_warning_in_trace_and_response() -> None:
    with app_with({"f": "flaky_answer_op"}) as app:
        response = app.run_sync("f")
    assert response.answer == "fallback answer"
    assert response.warnings == [
        "flaky_answer_op: ConnectionError: upstream unavailable; answers with the `fallback` param instead"
    ]
    [span] = response.trace.spans  # type: ignore[union-attr]
    assert span.status == "degraded" and span.warnings


def test_fresh_instance_per_occurrence_and_run(register: Callable[..., Any]) -> None:
    seen: list[int] = []

    class Counting(Op):
        calls: ClassVar[int] = 0

        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self.runs = 0

        async def execute(self, ctx: OpContext) -> None:
            self.runs += 1
            assert self.runs == 1, "an op instance was reused"
            seen.append(id(self))

    register(Counting, "counting_op")
    with app_with({"f": "counting_op >> counting_op >> (counting_op | counting_op)"}) as app:
        first = app.run_sync("f")
        second = app.run_sync("f")
    assert len(seen) == 8
    assert first.flow_id != second.flow_id


def test_concurrent_runs_do_not_share_context(register: Callable[..., Any]) -> None:
    class Slow(Op):
        reads = ("query",)
        writes = ("answer",)

        async def execute(self, ctx: OpContext) -> None:
            query = ctx["query"]
            await asyncio.sleep(0.01)
            ctx["answer"] = query.upper()

    register(Slow, "slow_upper_op")

    async def main() -> list[str]:
        async with app_with({"f": "slow_upper_op"}) as app:
            responses = await asyncio.gather(*(app.run("f", query=f"q{i}") for i in range(20)))
        assert len({r.flow_id for r in responses}) == 20
        return [r.answer for r in responses]

    assert asyncio.run(main()) == [f"Q{i}" for i in range(20)]


def test_undeclared_write_and_read_fail_naming_the_op(register: Callable[..., Any]) -> None:
    class Sneaky(Op):
        writes = ("answer",)

        async def execute(self, ctx: OpContext) -> None:
            ctx["memories"] = []

    class Peeky(Op):
        async def execute(self, ctx: OpContext) -> None:
            ctx.get("query")

    register(Sneaky, "sneaky_op")
    register(Peeky, "peeky_op")
    with app_with({"w": "sneaky_op", "r": "peeky_op"}) as app:
        with pytest.raises(OpExecutionError, match="wrote context key 'memories', which Sneaky does not declare"):
            app.run_sync("w")
        with pytest.raises(OpExecutionError, match="read context key 'query', which Peeky does not declare"):
            app.run_sync("r")


def test_missing_key_names_who_should_have_written_it(register: Callable[..., Any]) -> None:
    class NeedsAnswer(Op):
        reads = ("answer",)

        async def execute(self, ctx: OpContext) -> None:
            ctx["answer"]

    class DegradesSilently(Op):
        writes = ("answer",)
        degradation = "writes nothing"

        async def execute(self, ctx: OpContext) -> None:
            raise ValueError("no")

    register(NeedsAnswer, "needs_answer_op")
    register(DegradesSilently, "degrades_silently_op")
    with app_with({"f": "degrades_silently_op >> needs_answer_op"}) as app, pytest.raises(ContextKeyError) as info:
        app.run_sync("f")
    assert "context key 'answer' is missing: it is written by degrades_silently_op" in str(info.value)


def test_inputs_are_checked_before_anything_runs() -> None:
    with app_with({"f": "echo_op"}) as app:
        with pytest.raises(InputError, match=r"needs input 'query'.*-q/--query"):
            app.run_sync("f")
        with pytest.raises(InputError, match=r"unknown input 'qurey'; did you mean 'query'"):
            app.run_sync("f", qurey="x", query="y")
        with pytest.raises(InputError, match=r"input 'top_k': Input should be a valid integer"):
            app.run_sync("f", query="x", top_k="many")
        response = app.run_sync("f", query="hi", top_k="3", timestamp="2024-05-01T10:00:00")
    assert response.answer == "hi"


def test_response_outputs_and_json() -> None:
    with App() as app:
        response = app.run_sync("set_query", query="  what did I do?  ", timestamp="2024-05-04 09:30")
    data = response.to_dict()
    assert data["outputs"] == {"query": "what did I do?", "timestamp": "2024-05-04T09:30:00"}
    assert data["trace"]["spans"][0]["op"] == "set_query_op"
    assert data["usage"]["llm_calls"] == 0
