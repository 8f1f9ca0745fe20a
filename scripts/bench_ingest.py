"""Offline ingest throughput: chat messages → memories through `personal_summary`, as `flowmem ingest` runs it.

The bundled sample chat (261 messages, two speakers) repeated ``--repeat`` times, each copy with
new message ids and moved 6 weeks later, goes through the write flow in batches of 50 with the
shipped defaults (offline heuristics, local e5 embeddings, no LLM) into a fresh ``local`` store
and, when asked, ``elasticsearch``. Time spent in the embedding model is measured apart, so the
flow's own throughput shows too, and so do the texts the write path asked the model for and the texts the model
computed (each distinct text once per call; the local model remembers the last 4,096 it computed, so a turn said
again, as every copy of the chat after the first says them, is not computed again).

``--prefill N`` first writes N memories of the same user straight to the store (random unit vectors, a tenth
stating a slot, created over the year before the chat), so the write path's reads run against a store that is
not empty (issue 24: ingest must not slow as the store grows).

Usage: python scripts/bench_ingest.py [--repeat 4] [--stores local,elasticsearch] [--es-url URL] [--prefill 10000]
Target (issue 24): ≥ 300 messages/s offline into an empty store and one of 10,000 (issue 5 asked for 200).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections import Counter
from datetime import timedelta
from typing import Any

import numpy as np
from bench_store import elasticsearch_node
from benchlib import machine

from flowmem import App
from flowmem.embedding.base import EmbeddingModel
from flowmem.eval.samples import load_messages
from flowmem.schema.memory import Memory, Message
from flowmem.scoring.slots import SLOTS_KEY

BATCH = 50


def chat(repeat: int) -> list[Message]:
    base = load_messages()
    messages = []
    for copy in range(repeat):
        shift = timedelta(weeks=6 * copy)
        for message in base:
            messages.append(message.model_copy(update={
                "message_id": f"{message.message_id}-{copy}", "time_created": message.time_created + shift,
            }))  # fmt: skip
    return messages


class Timed:
    """Adds up the time an embedding model spends (wrapping its ``embed``)."""

    def __init__(self, model: EmbeddingModel):
        self.seconds = 0.0
        self.texts = 0
        original = model.embed

        async def embed(texts: Any, *, kind: Any = "document") -> Any:
            started = time.perf_counter()
            try:
                return await original(texts, kind=kind)
            finally:
                self.seconds += time.perf_counter() - started
                self.texts += len(texts)

        model.embed = embed  # type: ignore[method-assign]


async def prefill(app: App, count: int, messages: list[Message]) -> None:
    """``count`` memories of alice, written as the write path leaves them (slots stored), before the chat.

    Every tenth states an employer, each superseding the one before: as the write path leaves them, all but the
    last are expired (the next one named as ``superseded_by``), so the store holds one current employer, not a
    thousand at once (which the chat's own employer statement would then expire all together)."""
    dims = len((await app.embedding_model().embed(["dims"]))[0])
    rng = np.random.default_rng(24)
    first = min(m.time_created for m in messages) - timedelta(days=365)
    last_employer = (count - 1) // 10 * 10
    for start in range(0, count, 1000):
        memories = []
        for i in range(start, min(start + 1000, count)):
            at = first + timedelta(minutes=50 * i)
            slots = {"employer": f"company {i}"} if i % 10 == 0 else {}
            words = f"I work at Company {i}" if slots else f"On day {i} I walked by the river and saw {i % 17} ducks"
            superseded = bool(slots) and i < last_employer
            memories.append(Memory(
                memory_id=f"prefill-{i}", workspace_id="bench", target="alice", memory_type="observation",
                content=words, created_at=at, updated_at=at, status="expired" if superseded else "valid",
                metadata={SLOTS_KEY: slots, **({"superseded_by": f"prefill-{i + 10}"} if superseded else {})},
                vector=rng.standard_normal(dims).astype(np.float32),
            ))  # fmt: skip
        await app.vector_store().write("bench", memories)


async def ingest(overrides: list[str], messages: list[Message], prefilled: int = 0) -> dict[str, Any]:
    async with App(overrides=overrides) as app:
        await prefill(app, prefilled, messages)
        timer = Timed(app.embedding_model())
        await app.embedding_model().embed(["warm up"])  # model load is not ingest
        # Nor is the store's first read, which loads the workspace's index from the file (once per process: a
        # server pays it at its first request, `flowmem ingest` at its first batch); reported apart.
        loading = time.perf_counter()
        await app.vector_store().search("bench", (await app.embedding_model().embed(["warm up"]))[0], 1)
        index_load = time.perf_counter() - loading
        timer.seconds, timer.texts = 0.0, 0
        computed = app.embedding_model().computed
        counts: Counter[str] = Counter()
        started = time.perf_counter()
        for start in range(0, len(messages), BATCH):  # as `flowmem ingest` does: each batch sees the ones before
            response = await app.run("personal_summary", messages=messages[start : start + BATCH],
                                     user_id="alice", workspace_id="bench")  # fmt: skip
            counts.update(a.action for a in response.outputs["memory_actions"])
        seconds = time.perf_counter() - started
        computed = app.embedding_model().computed - computed
    flow_only = seconds - timer.seconds
    return {
        "prefilled_memories": prefilled,
        "index_load_seconds": round(index_load, 3),
        "messages": len(messages),
        "seconds": round(seconds, 3),
        "messages_per_s": round(len(messages) / seconds, 1),
        "embedding_seconds": round(timer.seconds, 3),
        "embedding_share": round(timer.seconds / seconds, 3),
        "texts_asked": timer.texts,
        "texts_embedded": computed,
        "texts_embedded_per_message": round(computed / len(messages), 3),
        "messages_per_s_without_embedding": round(len(messages) / flow_only, 1) if flow_only > 0 else None,
        "decisions": dict(counts),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    messages = chat(args.repeat)
    results: dict[str, Any] = {}
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    if "local" in stores:
        with tempfile.TemporaryDirectory() as directory:
            overrides = [f"vector_store.default.params.directory={directory}"]
            results["local"] = await ingest(overrides, messages, args.prefill)
    if "elasticsearch" in stores:
        with elasticsearch_node(args.es_url) as info:
            overrides = [
                "vector_store.default.backend=elasticsearch",
                f"vector_store.default.params.hosts={info['url']}",
                f"vector_store.default.params.index=bench-ingest-{int(time.time())}",
            ]
            results["elasticsearch"] = await ingest(overrides, messages, args.prefill)
    rates = [r["messages_per_s"] for r in results.values()]
    return {
        "benchmark": "ingest",
        "machine": machine(),
        "config": "shipped default: offline heuristics, local e5 embeddings, no LLM; batches of 50",
        "results": results,
        "target_messages_per_s": 300,
        "meets_target": bool(rates) and min(rates) >= 300,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=4, help="copies of the 261-message sample chat")
    parser.add_argument("--stores", default="local", help="comma-separated: local, elasticsearch")
    parser.add_argument("--es-url", default=None, help="an Elasticsearch node to use (default: start one)")
    parser.add_argument("--prefill", type=int, default=0, help="memories of the user in the store before the chat")
    print(json.dumps(asyncio.run(main(parser.parse_args())), indent=2))
