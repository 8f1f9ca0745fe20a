"""One scope rule, one message: the store base, the memory service, flow inputs and the CLI refuse a blank or
ill-formed workspace or user id alike, in the words of ``rules.scope_problem``."""

from __future__ import annotations

import asyncio

import pytest

from flowmem.app import App
from flowmem.core.errors import InputError
from flowmem.vector_store.memory import MemoryStore
from flowmem.vector_store.rules import ID_RULE, ScopeError, scope_problem
from tests.unit.cli.test_cli import run_cli

FAST = ["embedding_model.default.backend=hash", "llm.default.backend=none", "vector_store.default.backend=memory"]
BLANK = "'  ' is not a workspace id: it is only spaces; an id is " + ID_RULE


def test_the_store_refuses_blank_ids_of_every_kind() -> None:
    store = MemoryStore()

    async def calls() -> None:
        with pytest.raises(ScopeError, match="workspace_id: " + BLANK.replace("(", r"\(").replace(")", r"\)")):
            await store.count("  ")
        with pytest.raises(InputError, match="only spaces"):
            await store.fence("w", ["  "])  # a fence of a blank user
        with pytest.raises(InputError, match="only spaces"):
            await store.get("w", ["  "])  # a blank memory id
        with pytest.raises(InputError, match="only spaces"):
            await store.write("w", user_id="alice", memorized=["  "])  # a blank message id

    asyncio.run(calls())


def test_the_service_and_the_flow_inputs_say_what_the_store_says() -> None:
    expected = scope_problem("workspace", "  ")
    assert expected is not None and expected.render() == "workspace_id: " + BLANK
    with App(overrides=FAST) as app:
        with pytest.raises(InputError) as service:
            app.memories.sync.search("tea", user_id="alice", workspace_id="  ")
        assert str(service.value) == expected.render()
        with pytest.raises(InputError) as both:
            app.memories.sync.add(text="I like tea", user_id=" ", workspace_id="")
        assert [p.where for p in both.value.problems] == ["workspace_id", "user_id"]  # every problem at once
        with pytest.raises(InputError) as flow:
            app.run_sync("personal_retrieve", query="tea", user_id="alice", workspace_id="  ")
        assert BLANK in str(flow.value)


def test_the_cli_says_it_too(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, where in (
        (("search", "tea", "-u", "alice", "-w", "  "), "workspace_id"),  # through the service
        (("store", "list", "-w", "  "), "-w/--workspace"),  # checked before the app opens, named by the option
    ):
        code, _, err = run_cli(capsys, *argv, *FAST)
        assert code == 2 and f"{where}: {BLANK}" in err and "Traceback" not in err, (argv, err)
