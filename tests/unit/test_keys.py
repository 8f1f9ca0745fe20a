"""The catalogue of context keys: names that are strings, with types that flow compilation compares."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from flowmem.core.errors import RegistryError
from flowmem.keys import (
    EXTRACTED_TIME,
    KEYS,
    MEMORIES,
    MESSAGES,
    QUERY,
    Key,
    accepts,
    check_text_key,
    define_key,
    key_named,
    text_keys,
    type_name,
)
from flowmem.schema.memory import Memory, Message
from flowmem.timeexpr.model import ExtractedTime


def test_a_key_is_its_name() -> None:
    assert MEMORIES == "memories" and isinstance(MEMORIES, str)
    assert {"memories": 1}[MEMORIES] == 1 and {MEMORIES: 1}["memories"] == 1
    assert MEMORIES.type == list[Memory] and MEMORIES.doc
    copy = pickle.loads(pickle.dumps(MEMORIES))
    assert (copy, copy.type, copy.doc) == (MEMORIES, MEMORIES.type, MEMORIES.doc)


def test_input_keys_have_the_inputs_types() -> None:
    from flowmem.flow.inputs import STANDARD_INPUTS

    for name, spec in STANDARD_INPUTS.items():
        assert KEYS.get(name).type is spec.type, name
    assert MESSAGES.type == list[Message] and QUERY.type is str


@pytest.mark.parametrize(
    ("reader", "writer", "expected"),
    [
        (list[Memory], list[Memory], True),
        (list[Memory], list[str], False),
        (str, list[Message], False),
        (ExtractedTime | None, None.__class__, True),
        (ExtractedTime | None, ExtractedTime, True),
        (ExtractedTime, ExtractedTime | None, False),  # may be None: a reader of ExtractedTime alone is wrong
        (list[dict[str, str]] | list[Message], list[Message], True),
        (float, int, True),
        (int, float, False),
        (Any, list[str], True),
        (str, Any, True),
        (list, list[str], True),
        (object, str, True),
    ],
)
def test_accepts(reader: Any, writer: Any, expected: bool) -> None:
    assert accepts(reader, writer) is expected


def test_type_names_are_short() -> None:
    assert type_name(MEMORIES.type) == "list[Memory]"
    assert type_name(EXTRACTED_TIME.type) == "ExtractedTime | None"
    assert type_name(str) == "str" and type_name(Any) == "any"
    assert type_name(dict[str, Any]) == "dict[str, any]"


def test_plain_names_resolve_to_the_catalogue() -> None:
    assert key_named("memories") is MEMORIES
    own = Key("memories", list[str])
    assert key_named(own) is own
    assert key_named("nobody_defined_this").type is Any


def test_a_plugin_defines_a_key_once() -> None:
    try:
        sentiment = define_key("sentiment_score", float, "how positive the query is")
        assert key_named("sentiment_score") is sentiment
        with pytest.raises(RegistryError, match="context key 'sentiment_score' is already registered"):
            define_key("sentiment_score", int, "another")
        with pytest.raises(RegistryError, match="snake_case"):
            define_key("Sentiment", float, "")
    finally:
        KEYS.remove("sentiment_score")


def test_text_keys_are_free_text_only() -> None:
    assert {"query", "answer", "summary", "reply"} <= set(text_keys())
    assert "user_id" not in text_keys()  # an id is a constrained string, not words to recall by
    assert "memories" not in text_keys()
    assert check_text_key("query") == "query"
    with pytest.raises(ValueError, match=r"'messages' holds list\[Message\], not free text; valid: answer, query"):
        check_text_key("messages")
    with pytest.raises(ValueError, match="'qurey' is no context key; valid: "):
        check_text_key("qurey")


def test_a_response_gives_outputs_by_key() -> None:
    from flowmem.flow.response import Response
    from flowmem.keys import MEMORY_ACTIONS, SKIPPED_MESSAGES
    from flowmem.schema.actions import MemoryAction

    action = MemoryAction(action="add", memory=Memory(workspace_id="w", target="u", content="likes tea"))
    response = Response("f", "id", outputs={"memory_actions": [action]})
    assert response.output(MEMORY_ACTIONS) == [action]
    assert response.output(SKIPPED_MESSAGES) is None  # not declared by the flow


def test_every_builtin_op_declares_typed_keys() -> None:
    """A built-in op names its keys by Key (mypy then checks its reads and writes), each with a type."""
    from flowmem.flow.inputs import STANDARD_INPUTS
    from flowmem.flow.op import OPS
    from flowmem.flow.plugins import load_builtins

    load_builtins()
    untyped = [
        f"{name}.{attr}: {key!r}"
        for name, op_cls in OPS.items()
        if op_cls.__module__.startswith("flowmem.ops.")
        for attr in ("reads", "optional_reads", "writes")
        for key in getattr(op_cls, attr)
        if not isinstance(key, Key) or (key.type is Any and key not in STANDARD_INPUTS)  # write_fences: the engine's
    ]
    assert untyped == []
    assert len([1 for _, op_cls in OPS.items() if op_cls.__module__.startswith("flowmem.ops.")]) >= 24
