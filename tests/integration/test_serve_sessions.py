"""Chat sessions through the service: ``POST /v1/context``, ``GET``/``DELETE /v1/sessions/{id}`` of a real
``flowmem serve`` (kept across a restart, scoped like /v1/search, a read-write key to update), and MCP's
``get_context`` over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from flowmem.testing.serve_process import ServeProcess
from tests.integration.test_serve import CONFIG, KEYS, RO, A, B, _config, _error

TURNS = ["I moved to Lisbon last month. It is sunny.", "My dog is called Rex.", "I work as a nurse.", "I hate figs."]


def _turn(http: httpx.Client, text: str, **extra: Any) -> dict[str, Any]:
    body = {"message": text, "user_id": "alice", "session_id": "s1", "workspace_id": "wa", "token_limit": 60, **extra}
    response = http.post("/v1/context", json=body, headers=A)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def test_context_sessions_survive_a_restart_and_are_scoped(tmp_path: Path) -> None:
    config = _config(tmp_path, CONFIG)
    home = tmp_path / "home"
    with ServeProcess(["-c", str(config)], home=home, env=KEYS) as server, httpx.Client(base_url=server.url) as http:
        first = _turn(http, TURNS[0])
        assert [m["content"] for m in first["chat_history"]] == [TURNS[0]] and first["flushed_messages"] == 0
        _turn(http, TURNS[1], reply="Lisbon is lovely.")
    # a new server process on the same store: the session goes on
    with ServeProcess(["-c", str(config)], home=home, env=KEYS) as server, httpx.Client(base_url=server.url) as http:
        flushed = [_turn(http, text, explain=True) for text in TURNS[2:]]
        assert any(turn["flushed_messages"] for turn in flushed), flushed
        shown = http.get("/v1/sessions/s1", params={"user_id": "alice", "workspace_id": "wa"}, headers=A)
        session = shown.json()
        assert shown.status_code == 200 and session["flushed"] >= 1 and "Lisbon" in session["summary"]
        assert session["messages"][-1]["content"] == TURNS[-1]
        assert "Lisbon is lovely." not in session["summary"]  # the assistant's words are not the user's facts
        # scope: like /v1/search to read, a read-write key to change
        turn = {"message": "hi", "user_id": "alice", "session_id": "s1", "workspace_id": "wa"}
        where = {"params": {"user_id": "alice", "workspace_id": "wa"}}
        for method, path, kwargs in (
            ("POST", "/v1/context", {"json": turn}),
            ("GET", "/v1/sessions/s1", where),
            ("DELETE", "/v1/sessions/s1", where),
        ):
            _error(http.request(method, path, **kwargs), 401, "unauthorized")
            other = _error(http.request(method, path, headers=B, **kwargs), 403, "forbidden")
            assert "Lisbon" not in str(other) and "wb" in other["message"]
            if method != "GET":
                assert (
                    "read-only" in _error(http.request(method, path, headers=RO, **kwargs), 403, "forbidden")["message"]
                )
        assert http.get("/v1/sessions/s1", headers=RO, **where).status_code == 200  # type: ignore[arg-type]
        _error(
            http.get("/v1/sessions/s1", params={"user_id": "bob", "workspace_id": "wa"}, headers=A), 404, "not_found"
        )
        _error(http.post("/v1/context", json={**turn, "message": " "}, headers=A), 400, "invalid_input")
        # forget erases the session; then it is gone
        erased = http.delete("/v1/users/alice", params={"workspace_id": "wa"}, headers=A).json()
        assert erased["sessions"] == 1
        _error(http.delete("/v1/sessions/s1", headers=A, **where), 404, "not_found")  # type: ignore[arg-type]


def test_mcp_get_context_over_stdio(tmp_path: Path) -> None:
    config = tmp_path / "mcp.yaml"
    config.write_text("embedding_model:\n  default: {backend: hash}\n", encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "flowmem", "mcp", "-c", str(config), "-w", "notes", "-u", "ivy"],
        env={"FLOWMEM_HOME": str(tmp_path / "home"), "PATH": os.environ.get("PATH", "")},
    )

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert "once per turn" in (tools["get_context"].description or "")
            replies = []
            for text in TURNS:
                result = await session.call_tool(
                    "get_context", {"message": text, "session_id": "c1", "token_limit": 60}
                )
                assert not result.is_error, result.content
                replies.append(json.loads(result.content[0].text))
            assert replies[0]["chat_history"][0]["content"] == TURNS[0]
            assert any(r["flushed_messages"] for r in replies) and "Lisbon" in replies[-1]["summary"]
            empty = await session.call_tool("get_context", {"message": "hi", "session_id": ""})
            assert empty.is_error and "session_id" in empty.content[0].text

    asyncio.run(main())
