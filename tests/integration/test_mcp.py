"""MCP with the SDK's own client session: over stdio (`flowmem mcp`) and over HTTP (`flowmem serve`'s /mcp).

List the tools, add a memory, search it; over HTTP the API key scopes the tools like the HTTP API.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from flowmem.testing.serve_process import ServeProcess

TOOLS = {"add_memory", "search_memories", "list_memories", "update_memory", "delete_memory", "memory_history",
         "get_context"}  # fmt: skip
KEY = "mcp-key-0123456789abcdef"


def _config(tmp: Path, extra: str = "") -> Path:
    path = tmp / "mcp.yaml"
    path.write_text("embedding_model:\n  default: {backend: hash}\n" + extra, encoding="utf-8")
    return path


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def _exercise(session: ClientSession, **scope: str) -> None:
    await session.initialize()
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    assert all(len(tool.description or "") > 60 for tool in tools.values())  # written for an LLM to use well
    added = _data(await session.call_tool("add_memory", {"text": "I keep bees on my balcony", **scope}))
    memory_id = added["actions"][0]["memory_id"]
    found = _data(await session.call_tool("search_memories", {"query": "what do I keep on the balcony?", **scope}))
    assert found["memories"][0]["id"] == memory_id and "bees" in found["memories"][0]["content"]
    listed = _data(await session.call_tool("list_memories", scope))
    assert listed["total"] == 1
    updated = _data(await session.call_tool("update_memory", {"memory_id": memory_id, "content": "I keep wasps"}))
    assert updated["content"] == "I keep wasps"
    history = _data(await session.call_tool("memory_history", {"memory_id": memory_id}))
    assert [e["event"] for e in history["events"]] == ["add", "update"]
    assert _data(await session.call_tool("delete_memory", {"memory_id": memory_id}))["deleted"] == [memory_id]
    missing = await session.call_tool("update_memory", {"memory_id": "nope", "content": "x"})
    assert missing.is_error and "no memory with id 'nope'" in missing.content[0].text  # the CLI's words


def test_stdio(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "flowmem", "mcp", "-c", str(_config(tmp_path)), "-w", "notes", "-u", "ivy"],
        env={"FLOWMEM_HOME": str(tmp_path / "home"), "PATH": os.environ.get("PATH", "")},
    )

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await _exercise(session)
            other = await session.call_tool("list_memories", {"workspace_id": "elsewhere"})
            assert other.is_error and "serves workspace 'notes' only" in other.content[0].text

    asyncio.run(main())


def test_http_with_api_key(tmp_path: Path) -> None:
    config = _config(
        tmp_path, 'server:\n  api_keys:\n    - {name: agent, key: "${FLOWMEM_KEY_MCP}", workspaces: [notes]}\n'
    )

    async def main(url: str) -> None:
        headers = {"Authorization": f"Bearer {KEY}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as client,
            streamable_http_client(f"{url}/mcp/", http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await _exercise(session, user_id="ivy")
            other = await session.call_tool("list_memories", {"workspace_id": "secret", "user_id": "ivy"})
            assert other.is_error and "may not use workspace 'secret'" in other.content[0].text
        async with (
            httpx2.AsyncClient(timeout=30) as client,
            streamable_http_client(f"{url}/mcp/", http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            refused = await session.call_tool("search_memories", {"query": "bees", "user_id": "ivy"})
            assert refused.is_error and "no API key" in refused.content[0].text

    with ServeProcess(["-c", str(config)], home=tmp_path / "home", env={"FLOWMEM_KEY_MCP": KEY}) as process:
        asyncio.run(main(process.url))
        scraped = httpx2.get(f"{process.url}/metrics", timeout=30).text
    # search_memories takes its turn with /v1/search's (server.search_concurrency): the one allowed call counted.
    assert "\nflowmem_search_turns 1.0\n" in scraped


def test_stdio_for_one_user_refuses_the_memories_of_others(tmp_path: Path) -> None:
    # `flowmem mcp -w notes -u alice`: a memory id of bob's (predictable from its message id) was read,
    # changed and deleted through memory_history, update_memory and delete_memory.
    config = _config(tmp_path)

    def server(user: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", "flowmem", "mcp", "-c", str(config), "-w", "notes", "-u", user],
            env={"FLOWMEM_HOME": str(tmp_path / "home"), "PATH": os.environ.get("PATH", "")},
        )

    async def add(session: ClientSession, text: str) -> str:
        await session.initialize()
        memory_id: str = _data(await session.call_tool("add_memory", {"text": text}))["actions"][0]["memory_id"]
        return memory_id

    async def main() -> None:
        async with stdio_client(server("bob")) as (read, write), ClientSession(read, write) as session:
            theirs = await add(session, "My PIN is 4242")
        async with stdio_client(server("alice")) as (read, write), ClientSession(read, write) as session:
            mine = await add(session, "I keep bees on my balcony")
            for tool, args in [("update_memory", {"content": "My PIN is 0000"}), ("delete_memory", {})]:
                refused = await session.call_tool(tool, {"memory_id": theirs, **args})
                assert refused.is_error, (tool, refused.content)
                assert f"no memory with id '{theirs}'" in refused.content[0].text  # as if there were none
            history = _data(await session.call_tool("memory_history", {"memory_id": theirs}))
            assert history["events"] == []  # as for an id never used
            listed = _data(await session.call_tool("list_memories", {}))
            assert [m["memory_id"] for m in listed["memories"]] == [mine]
            found = _data(await session.call_tool("search_memories", {"query": "what is my PIN?"}))
            assert theirs not in {m["id"] for m in found["memories"]}
            assert _data(await session.call_tool("update_memory", {"memory_id": mine, "content": "I keep wasps"}))
            history = _data(await session.call_tool("memory_history", {"memory_id": mine}))
            assert [e["event"] for e in history["events"]] == ["add", "update"]
            assert _data(await session.call_tool("delete_memory", {"memory_id": mine}))["deleted"] == [mine]
        async with stdio_client(server("bob")) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            history = _data(await session.call_tool("memory_history", {"memory_id": theirs}))
            assert [e["event"] for e in history["events"]] == ["add"]  # bob's memory was never touched
            listed = _data(await session.call_tool("list_memories", {}))
            assert [m["content"] for m in listed["memories"]] == ["My PIN is 4242"]

    asyncio.run(main())
