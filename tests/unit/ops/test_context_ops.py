"""facts_block_op and context_assemble_op in flows: facts condensed (offline and by the fake LLM), blocks assembled."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest

import flowmem.testing.fake_llm  # noqa: F401  (registers the `fake` LLM)
from flowmem import App
from flowmem.cli.explain import explain
from flowmem.core.errors import ConfigError
from flowmem.core.tokens import count_message_tokens
from flowmem.schema.memory import Message
from tests.unit.ops.conftest import FAST, NOW, mem, put, run

FLOWS = {
    "facts": {"flow_content": "facts_block_op", "outputs": ["facts"]},
    "assemble": {
        "flow_content": "set_query_op >> (retrieve_memory_op | facts_block_op) >> context_assemble_op",
        "inputs": ["chat_history", "summary"],
        "outputs": ["context_messages", "facts"],
    },
}


@pytest.fixture
def make_flow_app() -> Any:
    apps: list[App] = []

    def make(*overrides: str, llm: dict[str, Any] | None = None) -> App:
        config: dict[str, Any] = {"flow": FLOWS}
        if llm is not None:
            config["llm"] = {"default": {"backend": "fake", "params": llm}}
        app = App(config=config, overrides=[*FAST, *overrides])
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.close()


def alice_facts() -> list[Any]:
    day = timedelta(days=1)
    return [
        mem("f1", "Alice lives in Berlin", memory_type="observation", updated_at=NOW - 5 * day),
        mem("f2", "alice lives in berlin.", memory_type="observation", updated_at=NOW - 4 * day),  # exact duplicate
        mem("f3", "Alice is vegetarian", memory_type="obs_customized", updated_at=NOW - 3 * day),
        mem("f4", "Alice has a dog called Rex", memory_type="observation", updated_at=NOW - 2 * day),
        mem("f5", "Alice likes hiking", memory_type="observation", updated_at=NOW - 1 * day),
        mem("x1", "Alice said hello", memory_type="conversation"),  # not a fact
        mem("x2", "Alice lived in Paris", memory_type="observation", status="expired"),  # not valid
        mem("x3", "Bob lives in Rome", memory_type="observation", target="bob"),  # not hers
    ]


def test_facts_offline_are_her_valid_facts_without_exact_duplicates(make_flow_app: Any) -> None:
    app = make_flow_app("op.facts_block_op.params.select=recent")
    put(app, alice_facts())
    response = run(app, "facts")
    # newest first, the duplicate merged (its newer copy stays), no conversation, expired or Bob's memory
    assert response.outputs["facts"] == [
        "Alice likes hiking",
        "Alice has a dog called Rex",
        "Alice is vegetarian",
        "alice lives in berlin.",
    ]
    note = response.trace.spans[0].notes["facts"]
    assert note["duplicates_merged"] == 1 and note["condensed"] == "no: within max_facts"


def test_facts_over_max_offline_keep_the_first_and_say_nothing_was_rewritten(make_flow_app: Any) -> None:
    app = make_flow_app("op.facts_block_op.params.select=recent", "op.facts_block_op.params.max_facts=2")
    put(app, alice_facts())
    response = run(app, "facts")
    assert response.outputs["facts"] == ["Alice likes hiking", "Alice has a dog called Rex"]
    note = response.trace.spans[0].notes["facts"]
    assert note["condensed"] == "offline (no LLM): the last 2 dropped"


def test_facts_over_max_are_condensed_by_the_llm(make_flow_app: Any) -> None:
    reply = {"facts": ["Alice lives in Berlin with her dog Rex", "Alice is a vegetarian hiker", "extra one"]}
    app = make_flow_app(
        "op.facts_block_op.params.select=recent",
        "op.facts_block_op.params.max_facts=2",
        llm={"replies": [json.dumps(reply)]},
    )
    put(app, alice_facts())
    response = run(app, "facts")
    assert response.outputs["facts"] == ["Alice lives in Berlin with her dog Rex", "Alice is a vegetarian hiker"]
    call = app.backend("llm").calls[0]  # type: ignore[attr-defined]
    assert "at most 2 facts" in call.messages[0].content
    prompt = call.messages[-1].content
    assert prompt.index("Alice likes hiking") < prompt.index("Alice is vegetarian")  # newest first
    assert response.trace.spans[0].notes["facts"]["condensed"] == "by the LLM from 4"


def test_a_useless_llm_reply_keeps_the_first_facts_and_warns(make_flow_app: Any) -> None:
    app = make_flow_app(
        "op.facts_block_op.params.select=recent", "op.facts_block_op.params.max_facts=2", llm={"replies": ["sorry"]}
    )
    put(app, alice_facts())
    response = run(app, "facts")
    assert response.outputs["facts"] == ["Alice likes hiking", "Alice has a dog called Rex"]
    assert any("held no facts" in w for w in response.warnings)


def test_relevant_facts_come_from_one_search_near_the_query(make_flow_app: Any) -> None:
    app = make_flow_app("op.facts_block_op.params.candidate_k=2")
    put(app, alice_facts())
    response = run(app, "facts", query="Alice lives in Berlin")
    assert response.outputs["facts"][0].lower().startswith("alice lives in berlin")
    assert len(response.outputs["facts"]) <= 2
    assert response.trace.spans[0].notes["facts"]["select"] == "relevant"


def test_assemble_flow_writes_openai_messages_within_the_limit_and_explains(make_flow_app: Any) -> None:
    app = make_flow_app(
        "op.context_assemble_op.params.token_limit=200",
        "op.context_assemble_op.params.system_prompt=You are Alice's assistant.",
    )
    put(app, alice_facts())
    history = [
        Message(role="user" if i % 2 == 0 else "assistant", content=f"turn {i}: we talked about trips " * 3,
                time_created=datetime(2024, 6, 1) + timedelta(minutes=i))
        for i in range(30)
    ]  # fmt: skip
    summary = "Earlier, Alice planned a trip to the Alps and asked about vegetarian food. " * 20
    response = run(app, "assemble", query="Where should I hike?", chat_history=history, summary=summary)
    messages = response.outputs["context_messages"]
    assert count_message_tokens(messages) <= 200
    assert messages[0]["role"] == "system" and messages[0]["content"].startswith("You are Alice's assistant.")
    assert messages[-1] == {"role": "user", "content": "Where should I hike?"}
    assert all(set(m) == {"role", "content"} for m in messages)
    note = next(s.notes["context"] for s in response.trace.spans if "context" in s.notes)
    statuses = {b["name"]: b["status"] for b in note["blocks"]}
    assert statuses["static"] == "kept" and statuses["summary"] in ("cut", "truncated")
    assert statuses["entities"] == "empty"
    # the retrieved memories that are facts already are said once, in the facts block
    memories_block = next(b for b in note["blocks"] if b["name"] == "memories")
    assert memories_block["items_total"] == 1 and "Alice said hello" in messages[0]["content"]
    assert messages[0]["content"].count("Alice likes hiking") == 1
    text = explain(response)
    assert "context: " in text and "of 200 tokens (o200k_base)" in text
    assert "history: kept the newest" in text
    assert "5 summary" in text


def test_the_llm_backend_picks_the_tokenizer_unless_the_op_names_one(make_flow_app: Any) -> None:
    app = make_flow_app("op.context_assemble_op.params.tokenizer=cl100k_base")
    response = run(app, "assemble", query="hi")
    note = next(s.notes["context"] for s in response.trace.spans if "context" in s.notes)
    assert note["tokenizer"] == "cl100k_base" and note["exact"] is True


def test_bad_block_specs_are_refused_with_the_valid_choices(make_flow_app: Any) -> None:
    unknown = '[{"name": "a", "source": "memorys", "priority": 1}]'
    with pytest.raises(ConfigError, match=r"blocks\.0\.source.*'system_prompt', 'facts', 'memories'.*got 'memorys'"):
        make_flow_app(f"op.context_assemble_op.params.blocks={unknown}")
    twice = '[{"name": "a", "source": "facts", "priority": 0}, {"name": "a", "source": "memories", "priority": 1}]'
    with pytest.raises(ConfigError, match="block names must be unique; given twice: a"):
        make_flow_app(f"op.context_assemble_op.params.blocks={twice}")


def test_a_failing_llm_degrades_to_the_first_facts(make_flow_app: Any) -> None:
    app = make_flow_app(
        "op.facts_block_op.params.select=recent", "op.facts_block_op.params.max_facts=2", llm={"fail": "server down"}
    )
    put(app, alice_facts())
    response = run(app, "facts")
    assert response.outputs["facts"] == ["Alice likes hiking", "Alice has a dog called Rex"]
    assert any("facts_block_op" in w and "server down" in w for w in response.warnings)
