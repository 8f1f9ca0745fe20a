"""Flow compilation compares types along each edge: what a reader declares must accept what provides the key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flowmem.config import load_config
from flowmem.config.schema import FlowEntry
from flowmem.core.errors import FlowValidationError
from flowmem.flow.compile import check_flow, compile_flow
from flowmem.flow.context import OpContext
from flowmem.flow.op import Op
from flowmem.keys import KEYS, Key
from tests.conftest import make_op


def problems_of(flow: str) -> list[str]:
    compiled, problems = check_flow("f", FlowEntry(flow_content=flow), load_config({}, environ={}))
    assert (compiled is None) == bool(problems)
    return [p.render() for p in problems]


def keyed_op(name: str, *, reads: tuple[str, ...] = (), writes: tuple[str, ...] = ()) -> type[Op]:
    async def execute(self: Op, ctx: OpContext) -> None:
        pass

    cls = type("".join(p.title() for p in name.split("_")), (Op,), {"reads": reads, "writes": writes})
    cls.execute = execute  # type: ignore[method-assign]
    return cls


def test_a_writer_of_another_type_is_refused_naming_both_ops_and_types(register: Callable[..., Any]) -> None:
    register(keyed_op("words_op", writes=(Key("memories", list[str], "words, not memories"),)))
    with pytest.raises(FlowValidationError) as info:
        compile_flow("f", FlowEntry(flow_content="words_op >> print_memory_op"), load_config({}, environ={}))
    [problem] = info.value.problems
    assert (
        "op 'print_memory_op' reads 'memories' as list[Memory], but op 'words_op' writes it as list[str]"
        in problem.render()
    )


def test_the_nearest_writer_is_the_one_compared(register: Callable[..., Any]) -> None:
    register(keyed_op("words_op", writes=(Key("memories", list[str]),)))
    register(make_op("memories_op", writes=("memories",)))  # a plain name: the catalogue's list[Memory]
    assert problems_of("words_op >> memories_op >> print_memory_op") == []
    [problem] = problems_of("memories_op >> words_op >> print_memory_op")
    assert "but op 'words_op' writes it as list[str]" in problem


def test_a_flow_input_of_another_type_is_refused(register: Callable[..., Any]) -> None:
    register(keyed_op("say_op", reads=(Key("messages", str, "the messages as one text"),), writes=("answer",)))
    [problem] = problems_of("say_op")
    assert "op 'say_op' reads 'messages' as str, but the flow input 'messages' is list[Message]" in problem


def test_optional_reads_are_compared_too(register: Callable[..., Any]) -> None:
    register(keyed_op("words_op", writes=(Key("memories", list[str]),)))
    register(make_op("maybe_op", optional_reads=("memories",), writes=("answer",)))
    [problem] = problems_of("words_op >> maybe_op")
    assert "op 'maybe_op' reads 'memories' as list[Memory]" in problem


def test_a_plugin_op_declares_its_own_key(register: Callable[..., Any]) -> None:
    score: Key[float] = Key("sentiment_score", float, "how positive the query is")
    with KEYS.temporarily(("sentiment_score", score)):
        register(keyed_op("score_op", reads=("query",), writes=(score,)))
        register(make_op("use_score_op", reads=("sentiment_score",), writes=("answer",)))  # by name: the catalogue's
        register(keyed_op("count_op", reads=(Key("sentiment_score", int),), writes=("answer",)))
        assert problems_of("score_op >> use_score_op") == []
        [problem] = problems_of("score_op >> count_op")
        assert "op 'count_op' reads 'sentiment_score' as int, but op 'score_op' writes it as float" in problem


def test_untyped_keys_are_not_compared(register: Callable[..., Any]) -> None:
    register(make_op("make_x_op", writes=("x_value",)))
    register(keyed_op("use_x_op", reads=(Key("x_value", list[int]),), writes=("answer",)))
    assert problems_of("make_x_op >> use_x_op") == []
