"""MCP ``search_memories`` answers briefly by default (id, content, type, time, score), in full on request."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mcp import Client

from flowmem.app import App
from flowmem.core.tokens import count_tokens
from flowmem.server.mcp_tools import FixedScope, build_mcp

CONFIG = {"embedding_model": {"default": {"backend": "hash"}}, "vector_store": {"default": {"backend": "memory"}}}
FACTS = [
    "I moved to Turin in March 2024 for a job at a robotics lab",
    "My sister Ana is a nurse in Porto",
    "I keep bees on my balcony and harvested honey last summer",
    "I am allergic to penicillin",
    "My daughter starts school on 9 September",
    "I climb at the Boulder Lab on Tuesdays",
]
QUERY = "Turin, my sister, bees, penicillin, school or climbing?"


def _search(**arguments: Any) -> tuple[str, Any]:
    async def main() -> tuple[str, Any]:
        app = App(CONFIG)
        try:
            for fact in FACTS:
                await app.memories.add(text=fact, user_id="priya")
            async with Client(build_mcp(app, FixedScope("default", "priya"))) as client:
                result = await client.call_tool("search_memories", {"query": QUERY, "top_k": 5, **arguments})
            assert not result.is_error, result.content
            return result.content[0].text, result.structured_content
        finally:
            await app.aclose()

    return asyncio.run(main())


def test_five_hits_cost_under_500_tokens_by_default() -> None:
    text, structured = _search()
    data = json.loads(text)
    assert structured == data
    assert len(data["memories"]) == 5
    assert set(data) == {"memories"}  # no answer text (the same memories again), no warnings when there are none
    for hit in data["memories"]:
        assert set(hit) == {"id", "content", "type", "time", "score"}
        assert hit["content"] in FACTS and len(hit["id"]) == 32
    turin = next(h for h in data["memories"] if "Turin" in h["content"])
    assert turin["time"].startswith("2024-03-01")  # when it happened, not when it was said
    assert [h["score"] for h in data["memories"]] == sorted((h["score"] for h in data["memories"]), reverse=True)
    assert count_tokens(text) < 500  # was ~2,600 (every stored field and score factor)


def test_details_gives_every_field_and_score_factor() -> None:
    text, _ = _search(details=True)
    data = json.loads(text)
    assert "answer" in data and len(data["memories"]) == 5
    hit = data["memories"][0]
    assert {"memory_id", "msg_year", "event_start", "expanded_key", "metadata"} <= set(hit)
    assert {"final", "recall", "type_ratio"} <= set(hit["scores"])
    assert count_tokens(text) > 2000
