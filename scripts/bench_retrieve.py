"""End-to-end `personal_retrieve` latency on the embedded default, and the parallel-branch check.

1. For each store size (default 1k, 10k, 100k): a fresh `local` store filled with synthetic memories
   (random unit vectors — embedding the store is not what is measured — with varied targets, types
   and times), then `personal_retrieve` through the public async API with the shipped default config
   (offline `local` e5 embedder, no LLM) for a mix of questions with and without time words.
   Reports p50/p95 of the whole flow, of the query embedding alone (measured apart, same questions),
   and of the flow without it.
2. Parallel branches: the `fake` LLM answering after 300 ms in both extract_time_op and
   semantic_rank_op; the two calls run concurrently, so the flow should take ~300 ms, not ~600.

Usage: python scripts/bench_retrieve.py [--sizes 1000,10000,100000] [--runs 200]
Targets (issue 4): p50 ≤ 20 ms at 10k; with two 300 ms LLM calls in parallel branches, p50 ≤ 350 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from datetime import datetime, timedelta

import numpy as np
from benchlib import machine, percentiles

import flowmem.testing.fake_llm  # noqa: F401  (the `fake` LLM: a 300 ms scripted model for the parallel-branch run)
from flowmem import App
from flowmem.schema.memory import MEMORY_TYPES, Memory

NOW = datetime(2024, 6, 12, 20, 0)
QUESTIONS = [
    "what did I do last weekend?",
    "where do I live?",
    "what did I eat yesterday?",
    "who did I meet in March?",
    "what are my favourite hobbies?",
    "how is my knee doing?",
    "上周三我做了什么？",
    "what's coming up next week?",
    "which restaurants do I like?",
    "what did I work on two weeks ago?",
]
BATCH = 2_000


def synthetic(n: int, dims: int, seed: int = 7) -> list[Memory]:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, dims)).astype(np.float32)
    start = datetime(2023, 1, 1)
    memories = []
    for i in range(n):
        said = start + timedelta(minutes=int(rng.integers(0, 60 * 24 * 530)))
        memory = Memory(
            workspace_id="bench",
            memory_id=f"m{i:07d}",
            target="alice" if i % 10 else "bob",
            memory_type=MEMORY_TYPES[i % 4],
            content=f"synthetic memory {i} about topic {i % 97}",
            created_at=said,
            vector=vectors[i],
        ).with_message_time(said)
        memories.append(memory)
    return memories


async def fill(app: App, n: int) -> float:
    memories = synthetic(n, app.embedding_model().dims)
    store = app.vector_store()
    started = time.perf_counter()
    for i in range(0, n, BATCH):
        await store.upsert("bench", memories[i : i + BATCH])
    return n / (time.perf_counter() - started)


async def measure_size(n: int, runs: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as directory:
        overrides = [
            f"vector_store.default.params.directory={directory}",
            "vector_store.default.params.synchronous=normal",
        ]
        async with App(overrides=overrides) as app:
            ingest = await fill(app, n)
            embedder = app.embedding_model()
            for question in QUESTIONS:  # warm up: model load, index load, caches
                await app.run("personal_retrieve", query=question, user_id="alice", workspace_id="bench", timestamp=NOW)
            flow_ms, embed_ms = [], []
            for i in range(runs):
                question = QUESTIONS[i % len(QUESTIONS)]
                started = time.perf_counter()
                await embedder.embed_one(question, kind="query")
                embed_ms.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                response = await app.run(
                    "personal_retrieve", query=question, user_id="alice", workspace_id="bench", timestamp=NOW
                )
                flow_ms.append((time.perf_counter() - started) * 1000)
                assert response.memories, "the benchmark must retrieve something"
    without = [f - e for f, e in zip(flow_ms, embed_ms, strict=True)]
    return {
        "memories": n,
        "ingest_memories_per_s": round(ingest),
        "flow_ms": percentiles(flow_ms, 50, 95),
        "query_embedding_ms": percentiles(embed_ms, 50, 95),
        "flow_without_embedding_ms": percentiles(without, 50, 95),
    }


async def measure_parallel(runs: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as directory:
        config = {"llm": {"default": {"backend": "fake", "params": {
            "delay_ms": 300, "by_prompt": {"Asked at": '{"year": 2024, "week": 23}'}, "replies": ['{"0": 0.5}'],
        }}}}  # fmt: skip
        overrides = [
            f"vector_store.default.params.directory={directory}",
            "embedding_model.default.backend=hash",
            "op.semantic_rank_op.params.output_memory_max_count=5",
        ]
        async with App(config=config, overrides=overrides) as app:
            await fill(app, 1_000)
            samples, calls = [], []
            for _ in range(runs):
                started = time.perf_counter()
                response = await app.run(
                    "personal_retrieve", query="what did I do last weekend?", user_id="alice", workspace_id="bench",
                    timestamp=NOW,
                )  # fmt: skip
                samples.append((time.perf_counter() - started) * 1000)
                calls.append(response.usage.llm_calls)
    assert set(calls) == {2}, f"expected two LLM calls per run, got {set(calls)}"
    return {"llm_delay_ms": 300, "llm_calls_per_run": 2, "flow_ms": percentiles(samples, 50, 95)}


async def main(sizes: list[int], runs: int) -> dict[str, object]:
    by_size = [await measure_size(n, runs) for n in sizes]
    parallel = await measure_parallel(max(20, runs // 10))
    at_10k = next((r for r in by_size if r["memories"] == 10_000), None)
    return {
        "benchmark": "retrieve",
        "machine": machine(),
        "config": "shipped default: local store, local e5 embeddings (offline), no LLM",
        "runs_per_size": runs,
        "questions": QUESTIONS,
        "by_size": by_size,
        "parallel_llm_branches": parallel,
        "targets": {"p50_ms_at_10k": 20, "parallel_p50_ms": 350},
        "meets_targets": {
            "p50_at_10k": None if at_10k is None else at_10k["flow_ms"]["p50"] <= 20,  # type: ignore[index]
            "parallel": parallel["flow_ms"]["p50"] <= 350,  # type: ignore[index]
        },
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    result = asyncio.run(main([int(s) for s in args.sizes.split(",")], args.runs))
    print(json.dumps(result, indent=2, ensure_ascii=False))
