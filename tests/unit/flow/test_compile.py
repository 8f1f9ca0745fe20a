"""Validation before running: every problem found up front, reported together."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flowmem.config import load_config
from flowmem.config.schema import FlowEntry
from flowmem.core.errors import ConfigError, FlowValidationError
from flowmem.flow.compile import check_flow, compile_flow
from tests.conftest import make_op


def problems_of(flow: str, config: dict[str, Any] | None = None, **entry: Any) -> list[str]:
    resolved = load_config(config or {}, environ={})
    compiled, problems = check_flow("f", FlowEntry(flow_content=flow, **entry), resolved)
    assert (compiled is None) == bool(problems)
    return [p.render() for p in problems]


@pytest.fixture
def keyed_ops(register: Callable[..., Any]) -> None:
    register(make_op("make_a_op", writes=("a",)))
    register(make_op("make_a_too_op", writes=("a",)))
    register(make_op("use_a_op", reads=("a",), writes=("b",)))
    register(make_op("use_b_op", reads=("b",), writes=("answer",)))
    register(make_op("maybe_a_op", optional_reads=("a",), writes=("c",)))


def test_valid_flow_compiles(keyed_ops: None) -> None:
    resolved = load_config({}, environ={})
    flow = compile_flow("f", FlowEntry(flow_content="make_a_op >> use_a_op >> use_b_op"), resolved)
    assert flow.required_inputs == ()
    assert flow.writers["a"] == ("make_a_op",)
    assert [span for span in flow.text.split(" >> ")] == ["make_a_op", "use_a_op", "use_b_op"]


def test_unknown_op_suggests_and_points_at_column(keyed_ops: None) -> None:
    [problem] = problems_of("make_a_op >> use_aa_op")
    assert "unknown op 'use_aa_op'; did you mean 'use_a_op'?" in problem
    assert "(column 14)" in problem
    assert problem.splitlines()[-1] == " " * 4 + " " * 13 + "^"


def test_read_without_upstream_writer(keyed_ops: None) -> None:
    [problem] = problems_of("use_a_op >> make_a_op")
    assert "op 'use_a_op' reads 'a', which is not available" in problem
    assert "written by make_a_op, which does not run before it" in problem


def test_read_satisfied_by_sibling_branch_is_not_enough(keyed_ops: None) -> None:
    [problem] = problems_of("make_a_op | use_a_op")
    assert "reads 'a', which is not available" in problem


def test_optional_read_needs_no_writer(keyed_ops: None) -> None:
    assert problems_of("maybe_a_op") == []


def test_parallel_branches_writing_one_key(keyed_ops: None) -> None:
    [problem] = problems_of("make_a_op | (noop_op >> make_a_too_op)")
    assert "parallel branches 1 (make_a_op) and 2 (noop_op >> make_a_too_op) both write 'a'" in problem


def test_same_op_twice_in_parallel_conflicts_but_in_sequence_is_fine(keyed_ops: None) -> None:
    assert len(problems_of("make_a_op | make_a_op")) == 1
    assert problems_of("make_a_op >> make_a_op") == []


def test_parallel_read_write_race(keyed_ops: None) -> None:
    problems = problems_of("make_a_op >> (maybe_a_op | make_a_too_op)")
    assert len(problems) == 1
    assert "op 'maybe_a_op' (parallel branch 1) reads 'a' while branch 2 (make_a_too_op) writes it" in problems[0]


def test_ill_typed_and_unknown_params_are_listed_when_the_config_loads() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({"op": {"sleep_op": {"params": {"ms": "soon", "msec": 1}}}}, environ={})
    text = str(info.value)
    assert "op 'sleep_op' param 'ms': Input should be a valid number" in text
    assert "op 'sleep_op' has no param 'msec'; did you mean 'ms'?" in text


def test_all_problems_together(keyed_ops: None) -> None:
    problems = problems_of("use_a_op >> nope_op >> (make_a_op | make_a_too_op)")
    assert len(problems) == 1 and "unknown op 'nope_op'" in problems[0]  # unknown ops stop the data-flow check
    problems = problems_of("use_a_op >> (make_a_op | make_a_too_op) >> use_b_op", outputs=["zzz"])
    assert len(problems) == 3
    assert any("reads 'a'" in p for p in problems)
    assert any("both write 'a'" in p for p in problems)
    assert any("output 'zzz'" in p for p in problems)


def test_syntax_error_is_a_problem_of_the_flow() -> None:
    [problem] = problems_of("noop_op >> (sleep_op |")
    assert problem.startswith("flow 'f': expected an op name after '|'")


def test_uses_an_unconfigured_backend(register: Callable[..., Any]) -> None:
    op = make_op("needs_llm_op")
    op.uses = ("llm",)
    register(op)
    with pytest.raises(ConfigError, match="uses llm 'fast', which is not configured"):
        load_config({"op": {"needs_llm_op": {"llm": "fast"}}}, environ={})
    assert problems_of("needs_llm_op") == []  # `default` is configured (backend none)


def test_required_inputs_are_derived(register: Callable[..., Any]) -> None:
    register(make_op("scoped_op", reads=("query", "user_id", "workspace_id"), optional_reads=("top_k",)))
    resolved = load_config({}, environ={})
    flow = compile_flow("f", FlowEntry(flow_content="scoped_op"), resolved)
    assert flow.required_inputs == ("query", "user_id")  # workspace_id has a default; top_k is optional
    flow = compile_flow("f", FlowEntry(flow_content="set_query_op >> scoped_op"), resolved)
    assert flow.required_inputs == ("query", "user_id")


def test_declared_extra_inputs(register: Callable[..., Any]) -> None:
    register(make_op("custom_op", reads=("ticket",)))
    assert "reads 'ticket'" in problems_of("custom_op")[0]
    assert problems_of("custom_op", inputs=["ticket"]) == []
    with pytest.raises(FlowValidationError):
        compile_flow("f", FlowEntry(flow_content="custom_op"), load_config({}, environ={}))
