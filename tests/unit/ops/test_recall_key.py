"""A param that names the text to recall for (``recall_key``) is checked against the catalogue of context keys."""

from __future__ import annotations

import pytest

from flowmem.config import load_config
from flowmem.config.schema import FlowEntry
from flowmem.core.errors import ConfigError
from flowmem.flow.compile import check_flow
from flowmem.keys import KEYS, Key


@pytest.mark.parametrize("op", ["retrieve_memory_op", "lexical_recall_op"])
def test_a_recall_key_naming_no_text_is_refused_with_the_valid_keys(op: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config({}, [f"op.{op}.params.recall_key=messages"], environ={})
    message = str(info.value)
    assert f"op '{op}' param 'recall_key'" in message
    assert "'messages' holds list[Message], not free text; valid: answer, query, reply, summary" in message
    with pytest.raises(ConfigError, match=r"'user_id' holds an id \(str with a rule of its own\), not free text"):
        load_config({}, [f"op.{op}.params.recall_key=user_id"], environ={})
    with pytest.raises(ConfigError, match="'qeury' is no context key; valid: answer, query"):
        load_config({}, [f"op.{op}.params.recall_key=qeury"], environ={})


def test_a_plugin_text_key_can_be_recalled_by() -> None:
    with KEYS.temporarily(("topic", Key("topic", str, "what the conversation is about"))):
        resolved = load_config({}, ["op.retrieve_memory_op.params.recall_key=topic"], environ={})
        compiled, problems = check_flow("f", FlowEntry(flow_content="retrieve_memory_op", inputs=["topic"]), resolved)
    assert problems == [] and compiled is not None
    assert "topic" in compiled.required_inputs
    assert compiled.writers["topic_vector"] == ("retrieve_memory_op",)


def test_the_cli_refuses_it_with_one_message() -> None:
    from tests.unit.cli.test_cli import flowmem

    done = flowmem("validate", "op.lexical_recall_op.params.recall_key=messages")
    assert done.returncode == 2
    assert "'messages' holds list[Message], not free text; valid: answer, query, reply, summary" in done.stderr
    assert "Traceback" not in done.stderr
