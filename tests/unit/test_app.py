"""The Python API: App, run/run_sync, backends by config name, closing, plugins."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from flowmem import App, Op, OpContext, register_backend
from flowmem.core.backend import BACKENDS, Backend, BackendParams
from flowmem.core.errors import ConfigError, FlowmemError, FlowValidationError, PluginError
from flowmem.llm import LLM


class CountingStore(Backend):
    kind = "vector_store"
    closed: ClassVar[list[str]] = []

    class Params(BackendParams):
        path: str = "/tmp/x"

    async def aclose(self) -> None:
        CountingStore.closed.append(self.name)


@pytest.fixture
def counting_store() -> Iterator[type[CountingStore]]:
    register_backend("vector_store", "counting")(CountingStore)
    CountingStore.closed.clear()
    yield CountingStore
    BACKENDS["vector_store"].remove("counting")


@pytest.fixture
def store_op(register: Callable[..., Any]) -> None:
    class StoreNameOp(Op):
        uses = ("vector_store", "llm")
        writes = ("answer",)

        async def execute(self, ctx: OpContext) -> None:
            store = self.backend("vector_store")
            llm = self.backend("llm")
            assert isinstance(llm, LLM) and not llm.available
            ctx["answer"] = f"{store.name}:{store.params.path}"  # type: ignore[attr-defined]

    register(StoreNameOp)


def test_backends_by_config_name_are_shared_and_closed(counting_store: type, store_op: None) -> None:
    config = {
        "flow": {"f": {"flow_content": "store_name_op"}, "g": {"flow_content": "archive_op"}},
        "op": {"archive_op": {"backend": "store_name_op", "vector_store": "archive"}},
        "vector_store": {
            "default": {"backend": "counting"},
            "archive": {"backend": "counting", "params": {"path": "/srv/archive"}},
        },
    }
    with App(config=config) as app:
        assert app.run_sync("f").answer == "default:/tmp/x"
        assert app.run_sync("g").answer == "archive:/srv/archive"
        assert app.run_sync("f").answer == "default:/tmp/x"
        assert len(app._backends.created()) == 3  # two stores and the llm, each created once
    assert sorted(CountingStore.closed) == ["archive", "default"]


def test_async_context_manager_closes(counting_store: type, store_op: None) -> None:
    config = {"flow": {"f": {"flow_content": "store_name_op"}}, "vector_store": {"default": {"backend": "counting"}}}

    async def main() -> None:
        async with App(config=config) as app:
            await app.run("f")
        with pytest.raises(FlowmemError, match="closed"):
            await app.run("f")

    asyncio.run(main())
    assert CountingStore.closed == ["default"]


def test_unknown_flow_lists_flows() -> None:
    with App() as app, pytest.raises(ConfigError, match=r"unknown flow 'set_qury'; did you mean 'set_query'"):
        app.run_sync("set_qury")


def test_invalid_flow_raises_before_running() -> None:
    with App(overrides=["flow.bad.flow_content=noop_op >> nope_op"]) as app:
        with pytest.raises(FlowValidationError, match="unknown op 'nope_op'"):
            app.run_sync("bad")
        problems = app.validate()
    assert problems["set_query"] == []
    assert len(problems["bad"]) == 1


def test_run_sync_inside_a_loop_says_to_await() -> None:
    async def main() -> None:
        with App() as app, pytest.raises(FlowmemError, match=r"await app\.run"):
            app.run_sync("set_query", query="x")

    asyncio.run(main())


def test_plugins_register_ops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_plugin.py").write_text(
        "from flowmem import Op, register_op\n"
        "@register_op\n"
        "class PluginHelloOp(Op):\n"
        "    writes = ('answer',)\n"
        "    async def execute(self, ctx):\n"
        "        ctx['answer'] = 'hello from a plugin'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with App(overrides=["flow.hi.flow_content=plugin_hello_op"], plugins=["my_plugin"]) as app:
            assert app.run_sync("hi").answer == "hello from a plugin"
    finally:
        from flowmem.flow.op import OPS

        OPS.remove("plugin_hello_op")
        sys.modules.pop("my_plugin", None)
    with pytest.raises(PluginError, match="cannot import plugin module 'no_such_plugin'"):
        App(plugins=["no_such_plugin"])


def test_plugins_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOWMEM_PLUGINS", "flowmem.testing.ops, no_such_env_plugin")
    with pytest.raises(PluginError, match="no_such_env_plugin"):
        App()


def test_flowmem_config_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "site.yaml"
    path.write_text("flow: {site: {flow_content: noop_op, description: from FLOWMEM_CONFIG}}")
    monkeypatch.setenv("FLOWMEM_CONFIG", str(path))
    with App() as app:
        assert app.config.flow["site"].description == "from FLOWMEM_CONFIG"
