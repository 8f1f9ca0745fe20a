"""Server time of the web inspector's pages over a large workspace (issue 27: the list page's first page <= 300 ms).

``--memories`` memories (default 100,000) of user ``alice`` in workspace ``bench`` (plus 20 other users with 50
each), written straight to a fresh ``local`` store with ``hash`` embeddings; then the inspector's app (as
``flowmem serve`` builds it) is called in process (httpx's ASGI transport: the server's own time, no network),
signed in as a real browser would be. Reported in milliseconds: the list page's first page on the first request
of the process (``cold``: it loads the workspace's index from the file, which every later call of any route
shares) and its median over ``--repeat`` requests after it; the same for a page deep in the list (the 50 memories
after the middle one), a status filter, a text filter, and the users page.

Usage: python scripts/bench_ui_list.py [--memories 100000] [--repeat 15]

Measured on the shared 2-core machine (load 8-9), 100,000 memories of alice (101,000 in the workspace), median of
15: list first page 12.0 ms; a page after the middle memory 3.3 ms; oldest first 3.4 ms; expired only 3.3 ms; text
filter ("dentist", 25,000 matches, the 500 best paged) 243.9 ms; users page (21 users, each counted) 108.2 ms. The
first request of the process took 8.6 s: the local store loading the workspace's 101,000 rows and vectors from its
file into its index, a cost any first call of the workspace pays (a /v1 search too), once per process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from typing import Any

import httpx

from flowmem import App
from flowmem.memories.browse import place_of
from flowmem.schema.memory import Memory
from flowmem.server.app import create_app

KEY = "bench-key-0123456789abcdef"
TEXTS = ("On day {i} I went for a walk by the river and saw {i} ducks", "I had lunch with colleague {i} at noon",
         "Booked a dentist appointment number {i}", "Read chapter {i} of the novel before bed")  # fmt: skip


async def _fill(app: App, memories: int) -> Memory:
    start = datetime(2020, 1, 1)
    users = [("alice", i) for i in range(memories)] + [
        (f"user{u:02d}", u * 50 + i) for u in range(20) for i in range(50)
    ]
    middle: Memory | None = None
    for at in range(0, len(users), 2000):
        chunk = users[at : at + 2000]
        texts = [TEXTS[i % 4].format(i=i) for _, i in chunk]
        vectors = await app.embedding_model().embed(texts, kind="document")
        batch = [
            Memory(workspace_id="bench", target=user, content=text, created_at=start + timedelta(minutes=i),
                   memory_type="observation" if i % 3 else "conversation", status="expired" if i % 7 == 0 else "valid",
                   vector=vector)
            for (user, i), text, vector in zip(chunk, texts, vectors, strict=True)
        ]  # fmt: skip
        await app.vector_store().write("bench", batch)
        middle = middle or next((m for m in batch if m.target == "alice" and m.created_at >= start + timedelta(
            minutes=memories // 2)), None)  # fmt: skip
    assert middle is not None
    return middle


async def _timed(client: httpx.AsyncClient, path: str, repeat: int) -> dict[str, float]:
    times = []
    for _ in range(repeat + 1):
        started = time.perf_counter()
        response = await client.get(path)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text[-500:]
    return {"first_ms": round(times[0], 1), "median_ms": round(statistics.median(times[1:]), 1)}


async def main(memories: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as home:
        overrides = [f"vector_store.default.params.directory={home}", "embedding_model.default.backend=hash"]
        async with App(overrides=overrides) as app:
            middle = await _fill(app, memories)
        config = {"server": {"api_keys": [{"name": "bench", "key": KEY, "workspaces": ["bench"]}]}}
        async with App(config, overrides=overrides) as app:  # a new process's view: nothing cached
            transport = httpx.ASGITransport(app=create_app(app))
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
                form = await client.get("/ui/signin")
                token = re.search(r'name="csrf" value="([^"]+)"', form.text)
                assert token is not None
                await client.post("/ui/signin", data={"csrf": token.group(1), "api_key": KEY})
                listing = "/ui/w/bench/u/alice"
                first_page = await _timed(client, listing, repeat)
                return {
                    "memories_of_alice": memories,
                    "memories_in_workspace": memories + 1000,
                    "list_first_page": first_page,
                    "list_deep_page": await _timed(client, f"{listing}?{_after(middle)}", repeat),
                    "list_oldest_first": await _timed(client, f"{listing}?order=oldest", repeat),
                    "list_expired": await _timed(client, f"{listing}?status=expired", repeat),
                    "list_text": await _timed(client, f"{listing}?text=dentist", repeat),
                    "users_page": await _timed(client, "/ui/w/bench", repeat),
                }


def _after(memory: Memory) -> str:
    return str(httpx.QueryParams({"after": place_of(memory)}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    print(json.dumps(asyncio.run(main(args.memories, args.repeat)), indent=2))
