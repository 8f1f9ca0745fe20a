"""MCP tool calls with values no client should send: a lone UTF-16 surrogate in an argument (written raw on
the wire: an SDK client cannot send one), a negative count, an empty session, a token budget below the flow's.
Each gets an answer (a tool error in the CLI's words, or a JSON-RPC error over HTTP), never silence or an
internal error; nothing is written."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from flowmem.testing.serve_process import ServeProcess
from tests.integration.test_mcp import _config

ANSWER_WITHIN = 30.0  # seconds; before the fix a surrogate request was never answered over stdio


class StdioServer:
    """``flowmem mcp`` spoken to line by line, so a request can hold what an SDK client would not write."""

    def __init__(self, tmp: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flowmem", "mcp", "-c", str(_config(tmp)), "-w", "notes", "-u", "ivy"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={"FLOWMEM_HOME": str(tmp / "home"), "PATH": os.environ.get("PATH", "")},
        )  # fmt: skip
        self.ids = 0

    def request(self, method: str, params_json: str) -> dict[str, Any]:
        """Send one request (``params_json``: raw JSON text) and wait for its answer."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.ids += 1
        line = f'{{"jsonrpc": "2.0", "id": {self.ids}, "method": "{method}", "params": {params_json}}}\n'
        self.process.stdin.write(line.encode())
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], ANSWER_WITHIN)
        assert ready, f"no answer in {ANSWER_WITHIN:g} s to {line}"
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        assert answer.get("id") == self.ids, answer
        return answer

    def call(self, tool: str, arguments_json: str) -> dict[str, Any]:
        result: dict[str, Any] = self.request("tools/call", f'{{"name": "{tool}", "arguments": {arguments_json}}}')[
            "result"
        ]
        return result

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(30)


def _tool_error(result: dict[str, Any]) -> str:
    assert result.get("isError") is True, result
    text: str = result["content"][0]["text"]
    assert "Traceback" not in text and "internal error" not in text.lower()
    return text


def test_stdio_tool_calls_with_bad_arguments_are_tool_errors(tmp_path: Path) -> None:
    server = StdioServer(tmp_path)
    try:
        init = '{"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}'
        server.request("initialize", init)
        for tool, arguments, named in [
            ("add_memory", '{"text": "I keep bees\\ud800"}', "text"),
            ("search_memories", '{"query": "\\udfff bees"}', "query"),
            ("get_context", '{"message": "hi", "session_id": "s\\ud800"}', "session_id"),
            ("update_memory", '{"memory_id": "m1", "content": "\\ud800"}', "content"),
        ]:  # fmt: skip
            text = _tool_error(server.call(tool, arguments))
            assert f"{named}: contains a lone UTF-16 surrogate" in text, text
        assert "top_k" in _tool_error(server.call("search_memories", '{"query": "bees", "top_k": -5}'))
        assert "session_id" in _tool_error(server.call("get_context", '{"message": "hi", "session_id": ""}'))
        low = _tool_error(server.call("get_context", '{"message": "hi", "session_id": "s", "token_limit": 5}'))
        assert "token_limit: must be a whole number of tokens, 16 or more" in low  # the HTTP API's words
        listed = server.call("list_memories", "{}")
        assert json.loads(listed["content"][0]["text"])["total"] == 0  # nothing was written
    finally:
        server.close()


def test_http_mcp_lone_surrogate_is_a_client_error(tmp_path: Path) -> None:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    body = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add_memory", "arguments": '
    body += '{"text": "I keep bees\\ud800", "user_id": "ivy"}}}'
    with ServeProcess(["-c", str(_config(tmp_path))], home=tmp_path / "home") as process:
        response = httpx.post(f"{process.url}/mcp/", content=body.encode(), headers=headers, timeout=30)
        assert 400 <= response.status_code < 500, response.text
        assert "error" in response.json() and "Traceback" not in response.text
        assert "Exception in ASGI application" not in process.output()
