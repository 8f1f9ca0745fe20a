"""An LLM or embedding server that echoes the API key it was sent in its errors (many do: "Incorrect API key
provided: sk-…"): the key must not reach anything flowmem prints or answers — CLI errors and warnings, the
200 bodies of ``POST /v1/memories`` and ``POST /v1/context``, MCP ``get_context``, or the server log.

The key comes from each place a config can hold it: a literal ``api_key`` in a YAML file, and the
``OPENAI_API_KEY`` fallback of the openai_compatible backends.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from flowmem.testing.serve_process import ServeProcess
from tests.unit.cli.test_cli import flowmem

YAML_KEY = "sk-from-the-yaml-file-0123456789"
ENV_KEY = "sk-from-openai-api-key-variable-9876543210"
SERVICE_KEY = "service-key-0123456789abcdef"


class _EchoingHandler(BaseHTTPRequestHandler):
    """Answers every request 401, quoting the bearer key it was sent (as some OpenAI-compatible servers do)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {key}", "code": "invalid_api_key"}})
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def echoing() -> Iterator[str]:
    """The base URL (…/v1) of a server that echoes the API key in every error."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoingHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _llm_config(tmp: Path, url: str, api_key: str | None) -> Path:
    key = f", api_key: {api_key}" if api_key else ""
    path = tmp / "echo.yaml"
    path.write_text(
        f"llm:\n  default: {{backend: openai_compatible, params: {{base_url: '{url}', max_retries: 0{key}}}}}\n"
        "embedding_model:\n  default: {backend: hash}\n"
        "server:\n  api_keys:\n    - {name: app, key: '${FLOWMEM_KEY_APP}', workspaces: ['*']}\n",
        encoding="utf-8",
    )
    return path


def _chat(tmp: Path) -> Path:
    path = tmp / "chat.jsonl"
    lines = [
        {"message_id": f"m{i}", "role": "user", "name": "alice", "content": text, "time_created": f"2025-03-2{i}T10:00"}
        for i, text in enumerate(["I live in Milan.", "My dog is called Rex.", "I work at Acme as a nurse."])
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("api_key", "env", "secret"), [(YAML_KEY, {}, YAML_KEY), (None, {"OPENAI_API_KEY": ENV_KEY}, ENV_KEY)]
)
def test_the_cli_never_prints_an_echoed_key(
    echoing: str, tmp_path: Path, api_key: str | None, env: dict[str, str], secret: str
) -> None:
    config = str(_llm_config(tmp_path, echoing, api_key))
    env = {**env, "FLOWMEM_HOME": str(tmp_path / "home"), "FLOWMEM_KEY_APP": SERVICE_KEY}
    warned = flowmem("ingest", str(_chat(tmp_path)), "-u", "alice", "-c", config, env=env)
    assert warned.returncode == 0 and "Incorrect API key provided: ***" in warned.stderr, warned.stderr
    strict = {**env, "FLOWMEM_HOME": str(tmp_path / "strict")}  # messages not memorized yet
    failed = flowmem("ingest", str(_chat(tmp_path)), "-u", "alice", "--strict", "-c", config, env=strict)
    assert failed.returncode == 1 and "Incorrect API key provided: ***" in failed.stderr, failed.stderr
    # The embedding server too: an error that ends the command.
    embedding = [
        "embedding_model.default.backend=openai_compatible",
        f"embedding_model.default.params.base_url={echoing}",
        "embedding_model.default.params.max_retries=0",
    ]
    if api_key:
        embedding.append(f"embedding_model.default.params.api_key={api_key}")
    searched = flowmem("search", "where do I live?", "-u", "alice", "-c", config, *embedding, env=env)
    assert searched.returncode != 0 and "refused the API key" in searched.stderr, searched.stderr
    for said in (warned, failed, searched):
        assert secret not in said.stdout + said.stderr


def test_the_service_never_answers_or_logs_an_echoed_key(echoing: str, tmp_path: Path) -> None:
    config = _llm_config(tmp_path, echoing, None)  # the key from $OPENAI_API_KEY: the backends' fallback
    env = {"FLOWMEM_KEY_APP": SERVICE_KEY, "OPENAI_API_KEY": ENV_KEY}
    headers = {"Authorization": f"Bearer {SERVICE_KEY}"}
    with ServeProcess(["-c", str(config)], home=tmp_path / "home", env=env) as server:
        with httpx.Client(base_url=server.url, headers=headers, timeout=60) as http:
            messages = [{"role": "user", "name": "alice", "content": "I live in Milan and my dog is called Rex."}]
            added = http.post("/v1/memories", json={"messages": messages, "user_id": "alice"})
            turn = {"message": "What did I do last Tuesday with Rex?", "user_id": "alice", "session_id": "s1"}
            context = http.post("/v1/context", json=turn)
        bodies = [added, context]
        for response in bodies:
            assert response.status_code == 200, response.text
            assert "Incorrect API key provided: ***" in response.text, response.text
        mcp_text = asyncio.run(_mcp_get_context(server.url, headers))
        assert "Incorrect API key provided: ***" in mcp_text, mcp_text
        log = server.output()
    for text in (added.text, context.text, mcp_text, log):
        assert ENV_KEY not in text


async def _mcp_get_context(url: str, headers: dict[str, str]) -> str:
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as client,
        streamable_http_client(f"{url}/mcp/", http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        arguments = {"message": "What did I do last Tuesday?", "user_id": "alice", "session_id": "s2"}
        result = await session.call_tool("get_context", arguments)
        return "".join(getattr(part, "text", "") for part in result.content)
