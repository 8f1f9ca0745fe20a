"""Flow compilation compares types along each edge: what a reader declares must accept what provides the key."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest
from pydantic import ValidationError

from flowmem.config import load_config
from flowmem.config.schema import FlowEntry
from flowmem.core.annotations import type_name
from flowmem.core.errors import ConfigError, FlowValidationError
from flowmem.flow.compile import check_flow, compile_flow
from flowmem.flow.context import OpContext
from flowmem.flow.op import OPS, Op
from flowmem.flow.plugins import load_builtins
from flowmem.flow.response import Response
from flowmem.keys import CONTEXT_MESSAGES, KEYS, RECENT_MESSAGES, Key, accepts
from flowmem.schema.memory import Message
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


# -- outputs: a caller reads one with the catalogue's key, so the writer's type must be the catalogue's ----------
def flow_problems(flow: str, outputs: list[Any]) -> list[str]:
    entry = FlowEntry(flow_content=flow, outputs=outputs)
    compiled, problems = check_flow("f", entry, load_config({}, environ={}))
    assert (compiled is None) == bool(problems)
    return [p.render() for p in problems]


def test_an_output_written_as_another_type_than_the_catalogues_is_refused(register: Callable[..., Any]) -> None:
    # what read_message_op did: Messages under the name the catalogue gives context_assemble_op's {role, content} dicts
    register(keyed_op("old_messages_op", reads=("messages",), writes=(Key("context_messages", list[Message]),)))
    [problem] = flow_problems("old_messages_op", ["context_messages"])
    assert (
        "output 'context_messages' is list[dict[str, str]] in the catalogue of keys (flowmem.keys), "
        "but op 'old_messages_op' writes it as list[Message]; write it under a key of its own and return that as "
        "'context_messages' (outputs: [{context_messages: the_key}])"
    ) in problem
    assert flow_problems("old_messages_op", []) == []  # not returned: no caller reads it with the catalogue's key


def test_an_output_is_renamed_by_a_one_entry_mapping() -> None:
    flow = "set_query_op >> read_message_op"
    assert flow_problems(flow, [{"context_messages": "recent_messages"}, "query_times"]) == []
    [problem] = flow_problems(flow, [{"context_messages": "recnt_messages"}])
    assert "output 'context_messages' (the key 'recnt_messages') is written by no op of the flow" in problem
    compiled = compile_flow(
        "f",
        FlowEntry(flow_content=flow, outputs=[{"context_messages": "recent_messages"}, "query_times"]),
        load_config({}, environ={}),
    )
    assert compiled.name == "f"
    assert compiled.outputs == ("context_messages", "query_times")  # the names a response has
    assert compiled.output_keys == {"context_messages": "recent_messages", "query_times": "query_times"}


@pytest.mark.parametrize(
    ("outputs", "message"),
    [
        ([{"a_name": "memories", "b_name": "answer"}], "an output renamed is a mapping of one entry"),
        (["memories", {"memories": "new_memories"}], "output names must be unique; given twice: memories"),
    ],
)
def test_output_names_are_one_each(outputs: list[Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        FlowEntry(flow_content="set_query_op", outputs=outputs)
    with pytest.raises(ConfigError, match=message):
        load_config({"flow": {"f": {"flow_content": "set_query_op", "outputs": outputs}}}, environ={})


def test_a_response_finds_a_renamed_output_by_its_key() -> None:
    message = Message(role="user", name="alice", content="hi")
    response = Response(
        "personal_context",
        "id",
        outputs={"context_messages": [message]},
        output_keys={"context_messages": "recent_messages"},
    )
    assert response.output(RECENT_MESSAGES) == [message]
    assert response.output(CONTEXT_MESSAGES) is None  # the name, not the key: chat_context's dicts are not here
    assert list(response.to_dict()["outputs"]) == ["context_messages"]


# -- every built-in op: one type a key --------------------------------------------------------------------------
def catalogue_mismatches(ops: Iterable[tuple[str, type[Op]]]) -> list[str]:
    """Keys an op declares under a catalogue name with a type that disagrees with the catalogue's: a write the
    catalogue's type does not accept, or a read that does not accept the catalogue's type."""
    found = []
    for name, op_cls in ops:
        io = op_cls.io(op_cls.Params())
        for how, keys in (("writes", io.writes), ("reads", (*io.reads, *io.optional_reads))):
            for key in keys:
                if not isinstance(key, Key) or key not in KEYS:
                    continue
                catalogued = KEYS.get(key).type
                if not (accepts(catalogued, key.type) if how == "writes" else accepts(key.type, catalogued)):
                    found.append(
                        f"{name} {how} '{key}' as {type_name(key.type)}; the catalogue: {type_name(catalogued)}"
                    )
    return found


def test_every_builtin_op_writes_and_reads_each_key_as_the_catalogue_types_it() -> None:
    load_builtins()
    builtins = [(name, op_cls) for name, op_cls in OPS.items() if op_cls.__module__.startswith("flowmem.ops.")]
    assert len(builtins) >= 24
    assert catalogue_mismatches(builtins) == []
    # the check sees the case it is for: read_message_op as it was, Messages under context_assemble_op's key
    old = keyed_op("old_messages_op", reads=("messages",), writes=(Key("context_messages", list[Message]),))
    assert catalogue_mismatches([("old_messages_op", old)]) == [
        "old_messages_op writes 'context_messages' as list[Message]; the catalogue: list[dict[str, str]]"
    ]
    wrong_read = keyed_op("count_op", reads=(Key("memories", int),))
    assert catalogue_mismatches([("count_op", wrong_read)]) == [
        "count_op reads 'memories' as int; the catalogue: list[Memory]"
    ]
