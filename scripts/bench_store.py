"""Vector store throughput and latency: the embedded ``local`` store and ``elasticsearch``.

For each store and size N: N memories with random 384-dim unit vectors (no embedding model: only
the store is measured) in one workspace, written with ``upsert`` in batches of 1,000 inside one
``bulk_load()`` block, as imports and ingestion write (ingest throughput includes the final
refresh / commit), then ``search`` latency for top_k=10 in that
workspace after a warm-up: once with the scope only, once with an extra ``memory_type`` filter
(a quarter of the memories match). Queries are stored vectors plus noise; recall@10 is measured
against exact numpy search. The local store is run with ``synchronous=normal`` and ``full``; its
cold index load (first search of a freshly opened store) is reported separately. Elasticsearch is
searched three times: right after the bulk load (many small segments, each its own HNSW graph),
after its background merges have settled, and (``--es-force-merge``) after an operator's
``_forcemerge`` to one segment.

Without ``--es-url`` an Elasticsearch node is started with ``scripts/elasticsearch_node.py`` (as
the test fixture does) and stopped afterwards. Prints one JSON document.

Usage: python scripts/bench_store.py [--sizes 10000,100000] [--stores local,elasticsearch]
       [--queries 200] [--es-url URL] [--es-param key=value ...]
Targets: local search p50 ≤ 2 ms @10k and ≤ 15 ms @100k; Elasticsearch kNN p50 ≤ 15 ms @100k;
local ingest ≥ 20,000 memories/s; Elasticsearch bulk ≥ 2,000 memories/s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from benchlib import machine, percentiles

from flowmem.core.safe_yaml import safe_load
from flowmem.schema.memory import MEMORY_TYPES, Memory
from flowmem.vector_store.base import VectorStore
from flowmem.vector_store.elasticsearch.store import ElasticsearchStore
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.local.store import LocalStore

DIMS = 384
BATCH = 1_000
TOP_K = 10
WARMUP = 30
WARMUP_SIZE = 3_000
WORKSPACE = "bench"
NODE_SCRIPT = Path(__file__).resolve().parent / "elasticsearch_node.py"
TARGETS = {
    "local_search_p50_ms_10k": 2.0,
    "local_search_p50_ms_100k": 15.0,
    "elasticsearch_search_p50_ms_100k": 15.0,
    "elasticsearch_search_p50_ms_100k_after_background_merges": 15.0,
    "local_ingest_per_s": 20_000,
    "elasticsearch_ingest_per_s": 2_000,
}


def make_data(n: int, queries: int) -> tuple[list[Memory], np.ndarray]:
    """``n`` memories (four types in turn) with random unit vectors, and ``queries`` unit query vectors."""
    rng = np.random.default_rng(n)
    vectors = rng.standard_normal((n, DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    start = datetime(2024, 1, 1)
    memories = [
        Memory(
            workspace_id=WORKSPACE, memory_id=f"m{i:07d}", content=f"memory number {i}", target="alice",
            memory_type=MEMORY_TYPES[i % 4], created_at=start + timedelta(seconds=i), vector=vectors[i],
        )
        for i in range(n)
    ]  # fmt: skip
    picks = rng.integers(0, n, size=queries)
    noisy = vectors[picks] + 0.05 * rng.standard_normal((queries, DIMS)).astype(np.float32)
    return memories, noisy / np.linalg.norm(noisy, axis=1, keepdims=True)


def exact_top(memories: list[Memory], queries: np.ndarray, flt: MemoryFilter | None) -> list[list[str]]:
    """The true top-k ids per query, best first (numpy brute force), for recall."""
    kept = [m for m in memories if flt is None or flt.matches(m)]
    matrix = np.stack([m.vector for m in kept])
    scores = queries @ matrix.T
    top = np.argsort(-scores, axis=1)[:, :TOP_K]
    return [[kept[j].memory_id for j in row] for row in top]


BULK_LOAD = True


async def ingest(store: VectorStore, memories: list[Memory]) -> dict[str, float]:
    started, cpu = time.perf_counter(), time.process_time()
    if BULK_LOAD:  # as `flowmem store import` and evaluations write: searchable when the block ends
        async with store.bulk_load():
            for start in range(0, len(memories), BATCH):
                await store.upsert(WORKSPACE, memories[start : start + BATCH])
    else:  # every upsert searchable when it returns
        for start in range(0, len(memories), BATCH):
            await store.upsert(WORKSPACE, memories[start : start + BATCH])
    seconds = time.perf_counter() - started
    return {
        "seconds": round(seconds, 3),
        "memories_per_s": round(len(memories) / seconds),
        "client_cpu_s": round(time.process_time() - cpu, 3),
    }


async def latency(
    store: VectorStore, queries: np.ndarray, flt: MemoryFilter | None, truth: list[list[str]]
) -> dict[str, Any]:
    """Search latency (ms), recall@10 against exact search, and how often the exact best hit came first.

    On uniformly random vectors the 2nd…10th true neighbours are near-ties (cosines ≈ 0.15-0.2 among
    thousands), the worst case for approximate (HNSW) recall; the best hit (the stored vector the
    query was made from, cosine ≈ 0.7) stands out as a real nearest neighbour would.
    """
    for vector in queries[:WARMUP]:
        await store.search(WORKSPACE, vector, TOP_K, flt)
    samples, hits, firsts = [], 0, 0
    for vector, expected in zip(queries, truth, strict=True):
        started = time.perf_counter()
        found = await store.search(WORKSPACE, vector, TOP_K, flt)
        samples.append((time.perf_counter() - started) * 1000.0)
        hits += len({m.memory_id for m in found} & set(expected))
        firsts += bool(found) and found[0].memory_id == expected[0]
    return {
        **percentiles(samples, 50, 95),
        "recall_at_10": round(hits / (TOP_K * len(queries)), 4),
        "best_hit_first": round(firsts / len(queries), 4),
    }


async def search_runs(store: VectorStore, memories: list[Memory], queries: np.ndarray) -> dict[str, Any]:
    typed = MemoryFilter(memory_type="insight")
    return {
        "search_ms": await latency(store, queries, None, exact_top(memories, queries, None)),
        "search_ms_with_type_filter": await latency(store, queries, typed, exact_top(memories, queries, typed)),
    }


async def bench_local(memories: list[Memory], queries: np.ndarray, synchronous: str) -> dict[str, Any]:
    directory = Path(tempfile.mkdtemp(prefix="flowmem-bench-local-"))
    params = LocalStore.Params(directory=str(directory), synchronous=synchronous)
    try:
        store = LocalStore(params)
        try:
            result: dict[str, Any] = {"ingest": await ingest(store, memories)}
        finally:
            await store.aclose()
        store = LocalStore(params)  # a fresh process's view: the index is loaded from disk on first search
        try:
            started = time.perf_counter()
            await store.search(WORKSPACE, queries[0], TOP_K)
            result["cold_index_load_ms"] = round((time.perf_counter() - started) * 1000.0, 2)
            result.update(await search_runs(store, memories, queries))
        finally:
            await store.aclose()
        return result
    finally:
        shutil.rmtree(directory, ignore_errors=True)


async def bench_elasticsearch(
    memories: list[Memory], queries: np.ndarray, url: str, extra: dict[str, Any], force_merge: bool
) -> dict[str, Any]:
    index = f"flowmem-bench-{len(memories)}-{uuid.uuid4().hex[:8]}"
    store = ElasticsearchStore(ElasticsearchStore.Params(hosts=url, index=index, dims=DIMS, **extra))
    try:
        result: dict[str, Any] = {"index_options": store.params.index_options, "params": extra}
        await store.count(WORKSPACE)  # first contact and index creation are not ingest
        result["ingest"] = await ingest(store, memories)
        result["segments_after_ingest"] = segments(url, index)
        result.update(await search_runs(store, memories, queries))
        # Elasticsearch keeps merging the many small segments of a bulk load in the background;
        # once it is done, searches visit fewer HNSW graphs (the steady state of a live index).
        settled: dict[str, Any] = {"waited_s": wait_for_merges(url, index), "segments": segments(url, index)}
        settled.update(await search_runs(store, memories, queries))
        result["after_background_merges"] = settled
        if force_merge:
            # Maintenance an operator may run after a bulk load; the store itself never does.
            started = time.perf_counter()
            request("POST", f"{url}/{index}/_forcemerge?max_num_segments=1", timeout=1800)
            merged: dict[str, Any] = {"force_merge_s": round(time.perf_counter() - started, 1)}
            merged.update(await search_runs(store, memories, queries))
            result["after_force_merge_to_1_segment"] = merged
        return result
    finally:
        await store.aclose()
        delete_index(url, index)


def request(method: str, url: str, timeout: float = 60) -> Any:
    with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=timeout) as response:
        return json.load(response)


def wait_for_merges(url: str, index: str, limit: float = 300.0) -> float:
    """Seconds until the index has had no merge running for 3 s in a row (at most ``limit``)."""
    started, quiet_since = time.perf_counter(), None
    while time.perf_counter() - started < limit:
        stats = request("GET", f"{url}/{index}/_stats/merge")
        if stats["_all"]["primaries"]["merges"]["current"] == 0:
            quiet_since = quiet_since or time.perf_counter()
            if time.perf_counter() - quiet_since >= 3.0:
                break
        else:
            quiet_since = None
        time.sleep(0.5)
    return round(time.perf_counter() - started, 1)


def segments(url: str, index: str) -> int:
    """How many Lucene segments the index has (each is searched separately by kNN)."""
    return len(request("GET", f"{url}/_cat/segments/{index}?format=json"))


def delete_index(url: str, index: str) -> None:
    """Delete the benchmark's index by its exact name (the server refuses wildcards)."""
    try:
        request("DELETE", f"{url}/{index}")
    except urllib.error.HTTPError as exc:
        if exc.code != 404:
            raise


@contextmanager
def elasticsearch_node(url: str | None) -> Iterator[dict[str, Any]]:
    """The node at ``url``, or one started (and finally stopped) by scripts/elasticsearch_node.py."""
    if url:
        with urllib.request.urlopen(f"{url}/_nodes/_local?filter_path=nodes.*.version", timeout=10) as response:
            nodes = json.load(response)["nodes"]
        yield {"url": url, "version": next(iter(nodes.values()))["version"], "started_here": False}
        return
    home = Path(tempfile.mkdtemp(prefix="flowmem-es-bench-"))
    script = [sys.executable, str(NODE_SCRIPT)]
    try:
        done = subprocess.run(
            [*script, "start", "--port", "0", "--home", str(home)], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"cannot start Elasticsearch: {done.stderr.strip()[-2000:]}")
        info = json.loads(done.stdout.strip().splitlines()[-1])
        yield {"url": info["url"], "version": info["version"], "started_here": True}
    finally:
        subprocess.run([*script, "stop", "--port", "0", "--home", str(home)], capture_output=True, check=False)
        shutil.rmtree(home, ignore_errors=True)


def verdicts(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each target with the measured value and whether it was met (None: not measured in this run)."""

    def pick(store: str, size: int, *path: str) -> Any:
        value: Any = results.get(store, {}).get(str(size))
        for key in path:
            value = None if value is None else value.get(key)
        return value

    local_ingest = [
        pick("local", size, mode, "ingest", "memories_per_s")
        for size in (10_000, 100_000)
        for mode in ("synchronous=normal", "synchronous=full")
    ]
    es_ingest = [pick("elasticsearch", size, "ingest", "memories_per_s") for size in (10_000, 100_000)]
    measured = {
        "local_search_p50_ms_10k": pick("local", 10_000, "synchronous=normal", "search_ms", "p50"),
        "local_search_p50_ms_100k": pick("local", 100_000, "synchronous=normal", "search_ms", "p50"),
        "elasticsearch_search_p50_ms_100k": pick("elasticsearch", 100_000, "search_ms", "p50"),
        "elasticsearch_search_p50_ms_100k_after_background_merges": pick(
            "elasticsearch", 100_000, "after_background_merges", "search_ms", "p50"
        ),
        "local_ingest_per_s": min((v for v in local_ingest if v is not None), default=None),
        "elasticsearch_ingest_per_s": min((v for v in es_ingest if v is not None), default=None),
    }
    out = {}
    for name, target in TARGETS.items():
        value = measured[name]
        met = None if value is None else (value >= target if name.endswith("per_s") else value <= target)
        out[name] = {"target": target, "measured": value, "met": met}
    return out


async def main(args: argparse.Namespace) -> dict[str, Any]:
    sizes = [int(s) for s in args.sizes.split(",") if s]
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    extra = {k: safe_load(v) for k, v in (p.split("=", 1) for p in args.es_param)}
    results: dict[str, dict[str, Any]] = {store: {} for store in stores}
    report: dict[str, Any] = {"benchmark": "vector_store", "machine": machine(), "load_average": os.getloadavg()}
    global BULK_LOAD
    BULK_LOAD = not args.no_bulk_load
    report["setup"] = {"dims": DIMS, "batch": BATCH, "top_k": TOP_K, "queries": args.queries, "warmup": WARMUP,
                       "ingest": "bulk_load" if BULK_LOAD else "plain upserts, each searchable on return"}  # fmt: skip
    with ExitStack() as stack:
        info = stack.enter_context(elasticsearch_node(args.es_url)) if "elasticsearch" in stores else None
        if info is not None:
            report["elasticsearch"] = info
        # Warm-up, not reported: imports, caches, and a fresh JVM's JIT on both paths.
        memories, queries = make_data(WARMUP_SIZE, WARMUP)
        if "local" in stores:
            await bench_local(memories, queries, "normal")
        if info is not None:
            await bench_elasticsearch(memories, queries, info["url"], extra, False)
        for size in sizes:
            memories, queries = make_data(size, args.queries)
            if "local" in stores:
                results["local"][str(size)] = {
                    f"synchronous={mode}": await bench_local(memories, queries, mode) for mode in ("normal", "full")
                }
                results["local"][str(size)]["load_average_after"] = os.getloadavg()
            if info is not None:
                results["elasticsearch"][str(size)] = await bench_elasticsearch(
                    memories, queries, info["url"], extra, args.es_force_merge
                )
                results["elasticsearch"][str(size)]["load_average_after"] = os.getloadavg()
    report["results"] = results
    report["targets"] = verdicts(results)
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated numbers of memories")
    parser.add_argument("--stores", default="local,elasticsearch", help="comma-separated: local, elasticsearch")
    parser.add_argument("--queries", type=int, default=200, help="measured searches per run (after a warm-up)")
    parser.add_argument("--es-url", default=None, help="an Elasticsearch node to use (default: start one)")
    parser.add_argument(
        "--es-param", action="append", default=[], metavar="KEY=VALUE", help="extra ElasticsearchStore param"
    )
    parser.add_argument(
        "--es-force-merge", action="store_true", help="also search after _forcemerge to one segment (slow at 100k)"
    )
    parser.add_argument(
        "--no-bulk-load", action="store_true", help="ingest with plain upserts, each searchable on return"
    )
    print(json.dumps(asyncio.run(main(parser.parse_args())), indent=2))
