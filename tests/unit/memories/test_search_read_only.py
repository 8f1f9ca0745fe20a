"""Search runs read-only flows only, a rule the memory service owns: ``app.memories.search``, ``flowmem search``
and ``POST /v1/search`` refuse a flow that writes, in the same words, naming the flows search may run."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from flowmem.app import App
from flowmem.core.errors import InputError
from flowmem.memories.flows import read_only_flows
from flowmem.server.app import create_app
from tests.unit.cli.test_cli import run_cli

KEY = "read-only-0123456789abcdef"
CONFIG = {
    "embedding_model": {"default": {"backend": "hash"}},
    "llm": {"default": {"backend": "none"}},
    "vector_store": {"default": {"backend": "memory"}},
    "server": {"api_keys": [{"name": "a", "key": KEY, "workspaces": ["*"]}]},
}


def _refusal(app: App, flow: str) -> str:
    return f"flow: '{flow}' writes memories; search runs a read-only flow: {', '.join(read_only_flows(app))}"


def test_the_service_refuses_a_flow_that_writes_and_names_the_read_only_ones() -> None:
    with App(CONFIG) as app:
        assert "personal_retrieve" in read_only_flows(app) and "personal_entities" not in read_only_flows(app)
        assert "chat_context" not in read_only_flows(app)  # it writes the chat session
        for flow in ("personal_entities", "personal_summary", "chat_context"):
            with pytest.raises(InputError) as refused:
                app.memories.sync.search("tea", user_id="alice", flow=flow)
            assert str(refused.value) == _refusal(app, flow)
        assert app.memories.sync.list(limit=None).total == 0  # nothing ran
        assert app.memories.sync.search("tea", user_id="alice").memories == []  # a read-only flow still runs


def test_the_cli_and_http_say_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    with App(CONFIG) as app:
        said = _refusal(app, "personal_entities")
    overrides = [
        "embedding_model.default.backend=hash",
        "vector_store.default.backend=memory",
        "llm.default.backend=none",
    ]
    code, out, err = run_cli(capsys, "search", "tea", "-u", "alice", "--flow", "personal_entities", *overrides)
    assert code == 2 and out == "" and err.strip() == f"flowmem: error: {said}"

    async def post() -> httpx.Response:
        app = App(CONFIG)
        try:
            transport = httpx.ASGITransport(app=create_app(app))
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
                body = {"query": "tea", "user_id": "alice", "flow": "personal_entities"}
                return await client.post("/v1/search", json=body, headers={"Authorization": f"Bearer {KEY}"})
        finally:
            await app.aclose()

    response = asyncio.run(post())
    assert response.status_code == 400 and response.json()["error"]["message"] == said
