"""End-to-end `personal_retrieve` latency on four shapes of store, and the parallel-branch check.

1. For each shape and store size (default 1k, 10k, 100k): a fresh store filled with synthetic memories
   (random unit vectors — embedding the store is not what is measured — with contents drawn from a small
   vocabulary the questions share, so word recall has work to do), then `personal_retrieve` through the
   public async API for a mix of questions with and without time words. The shapes (``SHAPES``):

   - ``spread``: chat turns spread over 18 months, a quarter of each memory type, one user in ten is bob;
   - ``bulk``: a bulk import — every memory created within the same 3 seconds, a quarter ``conversation``;
   - ``notes``: notes (observations, customised observations, insights) added one by one over 18 months;
   - ``multi_user``: a workspace of 100 users with ``size / 100`` spread memories each (100 × 1,000 at 100k).

   Reports per shape and size p50/p95 of the whole flow (wall time, and the process's CPU time: on a shared
   machine the wall time also counts waits for a core), of the query embedding alone (measured apart, same
   questions), of the flow without it, and each op's median (from the run's trace), with the machine and the
   embedder beside them. On Elasticsearch also the index's segments after the fill (which writes as ``store import``
   does, so a large fill ends merged) and, per run, the requests sent, the searches in them and the node's ``took``.

   Warm-up before the measured runs (``--warmup``): one run per question on the local store; on Elasticsearch 3,000
   runs (``ES_WARMUP``), reported per block of 100 (``warmup``: flow p50 and the node's ``took`` p50 of each block).
   A JVM serves its first searches slowly while it compiles the search code, and on two shared cores that takes
   thousands of searches: on a node started fresh, the same flow on the same 100k store went from 97.6 ms p50 (node
   ``took`` 60.5 ms, the JVM's CPU 126 ms a run) over its first 50 runs to ~19 ms (``took`` 7, JVM CPU 13 ms) after
   ~2,000, and a second shape's fresh index after 1,500 runs of the first still began at 54 ms, one after ~6,000 at
   15 ms (issue 24, session 12: the node's start, not the index's, nor the flow's cost, which a running service has
   long paid). Shapes benched one after another on one node each add their warm-up; the first blocks of the first
   shape say what a cold node costs.

   Tracing (``--tracing``, issue 26): ``off`` (the default: no OpenTelemetry SDK provider, so flowmem makes no
   spans) also reports what the instrumentation costs a run when off — its hooks (``RunTelemetry.start``, one
   ``op_span`` per op, ``run_ended``) timed alone — as a share of the flow's p50 (``both`` too). ``on`` collects
   every run's spans (an SDK ``TracerProvider``, a ``BatchSpanProcessor`` into the in-memory exporter); ``both``
   alternates the two query by query in one process and reports each arm and the difference.
2. Parallel branches: the `fake` LLM answering after 300 ms in both extract_time_op and
   semantic_rank_op; the two calls run concurrently, so the flow should take ~300 ms, not ~600.

Usage: python scripts/bench_retrieve.py [--shapes spread,bulk,notes,multi_user] [--sizes 1000,10000,100000]
           [--runs 200] [--embedder local|hash] [--store local|elasticsearch] [--es-url URL] [--no-parallel]
           [--tracing off|on|both] [--warmup N]
Targets (issue 24): with ``--embedder hash`` p50 ≤ 3 ms at 10k on every shape; with the offline e5 model the
flow without its query embedding p50 ≤ 5 ms at 10k and ≤ 15 ms at 100k (Elasticsearch at 100k ≤ 25 ms).
Issue 26: the instrumentation with tracing off ≤ 2 % of the flow.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import timeit
import urllib.error
import urllib.request
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from benchlib import machine, percentiles

import flowmem.testing.fake_llm  # noqa: F401  (the `fake` LLM: a 300 ms scripted model for the parallel-branch run)
from flowmem import App
from flowmem.core.trace import OpSpan, Trace
from flowmem.embedding.base import EmbeddingModel
from flowmem.flow.telemetry import RunTelemetry, op_span, run_ended
from flowmem.schema.memory import MEMORY_TYPES, Memory, MemoryType

NOW = datetime(2024, 6, 12, 20, 0)
START = datetime(2023, 1, 1)
SPAN_MINUTES = 60 * 24 * 530  # about 18 months before NOW
WORKSPACE = "bench"
USER = "alice"
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
# What the memories say: sentences that share words with the questions (and each other), as real ones do.
SAYINGS = [
    "I went hiking with {who} near {place}",
    "we eat ramen at one of the small restaurants in {place}",
    "my knee hurts again after running with {who}",
    "I live in a flat in {place} now",
    "I work on the {project} project all week",
    "I meet {who} for coffee in {place} on Saturdays",
    "my favourite hobby is painting, {who} likes pottery",
    "watched a film with {who} last weekend",
    "I ate dumplings with {who} yesterday",
    "next week I fly to {place} for the {project} review",
    "{who} recommended a restaurant in {place}",
    "我和{who}在{place}吃了火锅",
]
WHO = ["Sam", "Mia", "Jon", "Ana", "Leo", "Kim", "Raj", "Eva"]
PLACES = ["Lisbon", "Porto", "Alfama", "Berlin", "Osaka", "Madrid", "Austin", "Oslo"]
PROJECTS = ["billing", "search", "onboarding", "mobile", "reporting"]
NOTE_TYPES: tuple[MemoryType, ...] = ("observation",) * 7 + ("obs_customized",) * 2 + ("insight",)
BATCH = 2_000
# Warm-up runs on Elasticsearch (the module docstring says why), and the block size they are reported in.
ES_WARMUP = 3_000
WARM_BLOCK = 100


@dataclass
class Planned:
    """One memory to make: whom it is about, its type and when it was said."""

    target: str
    memory_type: MemoryType
    said: datetime
    session: str | None = None


def spread_turns(n: int, rng: np.random.Generator, target: str = USER, share_bob: bool = True) -> Iterator[Planned]:
    """Chat turns spread over 18 months (today's shape): a quarter of each type, one in ten about bob."""
    for i in range(n):
        said = START + timedelta(minutes=int(rng.integers(0, SPAN_MINUTES)))
        who = "bob" if share_bob and i % 10 == 0 else target
        yield Planned(who, MEMORY_TYPES[i % 4], said, session=f"s{said:%Y%m%d}")


def bulk_import(n: int, rng: np.random.Generator) -> Iterator[Planned]:
    """A bulk load: every memory created within the same 3 seconds, a quarter of them conversation turns."""
    base = NOW - timedelta(hours=1)
    for i in range(n):
        yield Planned(USER, MEMORY_TYPES[i % 4], base + timedelta(seconds=3 * i / n))


def notes_over_months(n: int, rng: np.random.Generator) -> Iterator[Planned]:
    """Notes added one by one over 18 months, evenly apart with a little jitter (no conversation turns)."""
    step = SPAN_MINUTES / n
    for i in range(n):
        said = START + timedelta(minutes=i * step + float(rng.uniform(0, step / 2)))
        yield Planned(USER, NOTE_TYPES[i % len(NOTE_TYPES)], said)


def multi_user(n: int, rng: np.random.Generator) -> Iterator[Planned]:
    """A workspace of 100 users, ``n / 100`` spread chat turns each; the questions are alice's (user 0)."""
    per_user = max(1, n // 100)
    for user in range(100):
        yield from spread_turns(per_user, rng, target=USER if user == 0 else f"user{user:03d}", share_bob=False)


# The shapes of store measured, by name: each plans n memories.
SHAPES: dict[str, Callable[[int, np.random.Generator], Iterator[Planned]]] = {
    "spread": spread_turns,
    "bulk": bulk_import,
    "notes": notes_over_months,
    "multi_user": multi_user,
}


async def synthetic(shape: str, n: int, model: EmbeddingModel, seed: int = 7) -> list[Memory]:
    """The memories of ``shape``; each one's vector is its saying's embedding plus as much noise again."""
    rng = np.random.default_rng(seed)
    planned = list(SHAPES[shape](n, rng))
    topics = await model.embed(
        [s.format(who="a friend", place="town", project="work") for s in SAYINGS], kind="document"
    )
    which = rng.integers(len(SAYINGS), size=len(planned))
    noise = rng.standard_normal((len(planned), model.dims)).astype(np.float32)
    vectors = topics[which] + noise / np.linalg.norm(noise, axis=1, keepdims=True)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    memories = []
    for i, plan in enumerate(planned):
        saying = SAYINGS[which[i]]
        content = saying.format(
            who=WHO[int(rng.integers(len(WHO)))],
            place=PLACES[int(rng.integers(len(PLACES)))],
            project=PROJECTS[int(rng.integers(len(PROJECTS)))],
        )
        memory = Memory(
            workspace_id=WORKSPACE,
            memory_id=f"m{i:07d}",
            target=plan.target,
            memory_type=plan.memory_type,
            content=f"{content} (#{i})",  # no two alike, as in a real store
            created_at=plan.said,
            metadata={"session": plan.session} if plan.session else {},
            vector=vectors[i],
        ).with_message_time(plan.said)
        memories.append(memory)
    return memories


async def fill(app: App, memories: list[Memory]) -> float:
    """Write the memories as ``store import`` does: in one bulk load, searchable when it ends (Elasticsearch: one
    refresh, then, from ``merge_after_import`` memories on, the index merged into one segment — part of the rate)."""
    store = app.vector_store()
    started = time.perf_counter()
    async with store.bulk_load():
        for i in range(0, len(memories), BATCH):
            await store.upsert(WORKSPACE, memories[i : i + BATCH])
    return len(memories) / (time.perf_counter() - started)


@asynccontextmanager
async def fresh_app(store: str, embedder: str, es_url: str, extra: tuple[str, ...] = ()) -> AsyncIterator[App]:
    """An App on an empty store of its own (a temporary directory, or an index deleted afterwards)."""
    overrides = [*extra] + (["embedding_model.default.backend=hash"] if embedder == "hash" else [])
    if store == "elasticsearch":
        index = f"flowmem-bench-retrieve-{uuid.uuid4().hex[:8]}"
        overrides += [f"vector_store.default.params.hosts={es_url}", f"vector_store.default.params.index={index}"]
        try:
            async with App("elasticsearch", overrides=overrides) as app:
                yield app
        finally:
            delete_indices(es_url, index)
        return
    with tempfile.TemporaryDirectory() as directory:
        overrides += [
            f"vector_store.default.params.directory={directory}",
            "vector_store.default.params.synchronous=normal",
        ]
        async with App(overrides=overrides) as app:
            yield app


def delete_indices(url: str, index: str) -> None:
    from flowmem.vector_store.elasticsearch.store import SIDE_SUFFIXES

    for suffix in ("", *SIDE_SUFFIXES):
        try:
            with urllib.request.urlopen(urllib.request.Request(f"{url}/{index}{suffix}", method="DELETE"), timeout=60):
                pass
        except urllib.error.HTTPError as exc:
            if exc.code != 404:
                raise


class NodeRequests:
    """The Elasticsearch requests a run sends and the node's own time for them (the ``took`` of each answer, an
    ``_msearch``'s top-level one), counted at the client: counts and ``took`` hardly move with the load, a run's wall
    time does (issue 24). Installed by :meth:`watch` on the client class, once per process."""

    requests = 0
    searches = 0  # searches inside them (an _msearch holds several)
    took_ms = 0

    @classmethod
    def watch(cls) -> None:
        from elasticsearch import AsyncElasticsearch

        if getattr(AsyncElasticsearch, "_bench_counted", False):
            return
        send = AsyncElasticsearch.perform_request

        async def counted(self: AsyncElasticsearch, method: str, path: str, **kwargs: object) -> object:
            answer = await send(self, method, path, **kwargs)  # type: ignore[arg-type]
            body = getattr(answer, "body", None)
            cls.requests += 1
            if isinstance(body, dict):
                cls.searches += len(body["responses"]) if "responses" in body else 1
                cls.took_ms += int(body.get("took") or 0)
            return answer

        AsyncElasticsearch.perform_request = counted  # type: ignore[method-assign, assignment]
        AsyncElasticsearch._bench_counted = True  # type: ignore[attr-defined]

    @classmethod
    def snapshot(cls) -> tuple[int, int, int]:
        return cls.requests, cls.searches, cls.took_ms


def segments(url: str, index: str) -> int:
    """The Lucene segments of an index (its primaries)."""
    with urllib.request.urlopen(f"{url}/{index}/_segments", timeout=60) as answer:
        shards = json.loads(answer.read())["indices"][index]["shards"]
    return sum(len(copy["segments"]) for copies in shards.values() for copy in copies)


async def retrieve(app: App, question: str) -> tuple[float, int, dict[str, float]]:
    """One run of the flow: its time (ms), how many memories it returned and each op's time (ms)."""
    started = time.perf_counter()
    response = await app.run("personal_retrieve", query=question, user_id=USER, workspace_id=WORKSPACE, timestamp=NOW)
    elapsed = (time.perf_counter() - started) * 1000
    assert response.trace is not None
    return elapsed, len(response.memories), {span.op: span.duration_ms for span in response.trace.spans}


async def retrieve_timed(app: App, question: str) -> tuple[float, float, int, dict[str, float]]:
    """:func:`retrieve`, and the CPU time the process spent meanwhile (ms, every thread of it): on a shared machine
    the wall time also counts the waits for a core, the CPU time hardly."""
    cpu = time.process_time()
    elapsed, count, ops = await retrieve(app, question)
    return elapsed, (time.process_time() - cpu) * 1000, count, ops


class Tracing:
    """Spans collected or not, switchable query by query: an OpenTelemetry SDK provider exporting into memory."""

    def __init__(self) -> None:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        self.api = trace
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(BatchSpanProcessor(self.exporter))
        self.spans = 0

    def switch(self, on: bool) -> None:
        # The API lets an application set its provider once; a benchmark that alternates sets the global itself
        # (None: the API's proxy provider again, which flowmem reads as "nobody collects spans").
        self.api._TRACER_PROVIDER = self.provider if on else None

    def collected(self) -> int:
        """Spans exported so far (forgotten, counted)."""
        self.provider.force_flush()
        self.spans += len(self.exporter.get_finished_spans())
        self.exporter.clear()
        return self.spans


def off_hooks_us(ops: int) -> float:
    """What flowmem's instrumentation costs one run with nobody collecting spans (µs): the run's check, one empty
    op context per op and the run listeners' check — timed alone, best of five."""
    span, trace = OpSpan("op", 1, 0.0), Trace("personal_retrieve", "bench", "")

    def hooks() -> None:
        telemetry = RunTelemetry.start()
        for _ in range(ops):
            with op_span(telemetry, span):
                pass
        run_ended(trace, None)

    number = 20_000
    return min(timeit.repeat(hooks, number=number, repeat=5)) / number * 1e6


async def warm_up(app: App, runs: int) -> list[dict[str, float]]:
    """``runs`` runs of the flow over the questions, unmeasured but for each block of :data:`WARM_BLOCK`: its flow
    p50 (ms) and, on Elasticsearch, the node's ``took`` p50 a run."""
    blocks: list[dict[str, float]] = []
    for start in range(0, runs, WARM_BLOCK):
        flow, took = [], []
        for i in range(start, min(runs, start + WARM_BLOCK)):
            before = NodeRequests.snapshot()[2]
            flow.append((await retrieve(app, QUESTIONS[i % len(QUESTIONS)]))[0])
            took.append(float(NodeRequests.snapshot()[2] - before))
        blocks.append({"runs": len(flow), "flow_p50_ms": round(statistics.median(flow), 2),
                       "node_took_p50_ms": statistics.median(took)})  # fmt: skip
    return blocks


async def measure(
    shape: str,
    n: int,
    runs: int,
    store: str,
    embedder: str,
    es_url: str,
    tracing: str = "off",
    warmup: int | None = None,
) -> dict[str, object]:
    spans = Tracing() if tracing != "off" else None
    arms = {"off": [False], "on": [True], "both": [False, True]}[tracing]
    node: dict[str, list[int]] = defaultdict(list)  # Elasticsearch: per run, requests, searches and took (ms)
    async with fresh_app(store, embedder, es_url) as app:
        model = app.embedding_model()
        ingest = await fill(app, await synthetic(shape, n, model))
        index_segments = segments(es_url, app.vector_store().index) if store == "elasticsearch" else None  # type: ignore[attr-defined]
        # Warm up: model load, index load, caches; on Elasticsearch also the JVM's compiled search code.
        warmed = await warm_up(app, warmup if warmup is not None else ES_WARMUP if store == "elasticsearch" else 10)
        flow_ms, cpu_ms, embed_ms, returned, traced_ms, traced_cpu_ms = [], [], [], [], [], []
        op_ms: dict[str, list[float]] = defaultdict(list)
        for i in range(runs):
            question = QUESTIONS[i % len(QUESTIONS)]
            started = time.perf_counter()
            await model.embed_one(question, kind="query")
            embed_ms.append((time.perf_counter() - started) * 1000)
            for on in arms if i % 2 else arms[::-1]:  # both: each arm first every other query
                if spans is not None:
                    spans.switch(on)
                before = NodeRequests.snapshot()
                elapsed, cpu, count, ops = await retrieve_timed(app, question)
                if store == "elasticsearch" and not (on and tracing == "both"):
                    after = NodeRequests.snapshot()
                    for key, was, now in zip(("requests", "searches", "took"), before, after, strict=True):
                        node[key].append(now - was)
                if on and tracing == "both":
                    traced_ms.append(elapsed)
                    traced_cpu_ms.append(cpu)
                    continue
                flow_ms.append(elapsed)
                cpu_ms.append(cpu)
                returned.append(count)
                for op, ms in ops.items():
                    op_ms[op].append(ms)
        if spans is not None:
            spans.switch(False)
    assert sum(returned), "the benchmark must retrieve something"
    without = [f - e for f, e in zip(flow_ms, embed_ms, strict=True)]
    result: dict[str, object] = {
        "shape": shape,
        "memories": n,
        "store": store,
        "embedder": model.model_id,
        "tracing": tracing,
        "ingest_memories_per_s": round(ingest),
        "memories_returned_mean": round(statistics.fmean(returned), 2),
        "flow_ms": percentiles(flow_ms, 50, 95),
        "flow_cpu_ms": percentiles(cpu_ms, 50, 95),
        "query_embedding_ms": percentiles(embed_ms, 50, 95),
        "flow_without_embedding_ms": percentiles(without, 50, 95),
        "op_median_ms": {op: round(statistics.median(ms), 3) for op, ms in op_ms.items()},
    }
    result["warmup"] = {"runs": sum(int(b["runs"]) for b in warmed), "blocks": warmed}
    if node:
        result["elasticsearch"] = {
            "segments_after_fill": index_segments,
            "requests_per_run_mean": round(statistics.fmean(node["requests"]), 2),
            "searches_per_run_mean": round(statistics.fmean(node["searches"]), 2),
            "node_took_ms_per_run": percentiles([float(t) for t in node["took"]], 50, 95),
        }
    if tracing != "on":  # what the untraced runs paid for the instrumentation
        hooks = off_hooks_us(len(op_ms))
        result["tracing_off_hooks"] = {
            "us_per_run": round(hooks, 2), "share_of_flow_p50_pct": round(hooks / 10 / statistics.median(flow_ms), 3),
            "share_of_flow_cpu_p50_pct": round(hooks / 10 / statistics.median(cpu_ms), 3),
        }  # fmt: skip
    if spans is not None:
        traced_runs = len(traced_ms) or runs
        result["spans_per_traced_run"] = round(spans.collected() / traced_runs, 2)
    if traced_ms:
        untraced, traced = statistics.median(flow_ms), statistics.median(traced_ms)
        result["tracing_on_flow_ms"] = percentiles(traced_ms, 50, 95)
        result["tracing_on_flow_cpu_ms"] = percentiles(traced_cpu_ms, 50, 95)
        result["tracing_on_overhead_pct"] = round((traced - untraced) / untraced * 100, 2)
        untraced, traced = statistics.median(cpu_ms), statistics.median(traced_cpu_ms)
        result["tracing_on_cpu_overhead_pct"] = round((traced - untraced) / untraced * 100, 2)
    return result


async def measure_parallel(runs: int) -> dict[str, object]:
    config = {"llm": {"default": {"backend": "fake", "params": {
        "delay_ms": 300, "by_prompt": {"Asked at": '{"year": 2024, "week": 23}'}, "replies": ['{"0": 0.5}'],
    }}}}  # fmt: skip
    with tempfile.TemporaryDirectory() as directory:
        overrides = [
            f"vector_store.default.params.directory={directory}",
            "embedding_model.default.backend=hash",
            "op.semantic_rank_op.params.output_memory_max_count=5",
        ]
        async with App(config=config, overrides=overrides) as app:
            await fill(app, await synthetic("spread", 1_000, app.embedding_model()))
            samples, calls = [], []
            for _ in range(runs):
                started = time.perf_counter()
                response = await app.run(
                    "personal_retrieve", query="what did I do last weekend?", user_id=USER, workspace_id=WORKSPACE,
                    timestamp=NOW,
                )  # fmt: skip
                samples.append((time.perf_counter() - started) * 1000)
                calls.append(response.usage.llm_calls)
    assert set(calls) == {2}, f"expected two LLM calls per run, got {set(calls)}"
    return {"llm_delay_ms": 300, "llm_calls_per_run": 2, "flow_ms": percentiles(samples, 50, 95)}


async def main(args: argparse.Namespace) -> dict[str, object]:
    sizes = [int(s) for s in args.sizes.split(",")]
    shapes = args.shapes.split(",")
    unknown = sorted(set(shapes) - set(SHAPES))
    if unknown:
        raise SystemExit(f"unknown shapes {unknown}; choose from {sorted(SHAPES)}")
    if args.store == "elasticsearch":
        NodeRequests.watch()
    results = []
    for shape in shapes:
        for n in sizes:
            results.append(
                await measure(shape, n, args.runs, args.store, args.embedder, args.es_url, args.tracing, args.warmup)
            )
    result: dict[str, object] = {
        "benchmark": "retrieve",
        "machine": machine(),
        "config": f"shipped default, {args.store} store, {args.embedder} embedder, no LLM, tracing {args.tracing}",
        "runs_per_size": args.runs,
        "questions": QUESTIONS,
        "results": results,
        "targets": {
            "hash_flow_p50_ms_at_10k": 3,
            "e5_flow_without_embedding_p50_ms": {"10k": 5, "100k": 15},
            "tracing_off_share_of_flow_pct": 2,
        },
    }
    if not args.no_parallel:
        result["parallel_llm_branches"] = parallel = await measure_parallel(max(20, args.runs // 10))
        result["parallel_meets_target_350ms"] = parallel["flow_ms"]["p50"] <= 350  # type: ignore[index]
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(SHAPES), help=f"comma-separated, of {', '.join(SHAPES)}")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--embedder", choices=["local", "hash"], default="local", help="local: the offline e5 model")
    parser.add_argument("--store", choices=["local", "elasticsearch"], default="local")
    parser.add_argument("--es-url", default="http://127.0.0.1:9200")
    parser.add_argument("--no-parallel", action="store_true", help="skip the parallel-LLM-branches check")
    parser.add_argument(
        "--warmup", type=int, default=None,
        help=f"unmeasured runs first (default: 10, on Elasticsearch {ES_WARMUP}: a JVM's first searches are slow)",
    )  # fmt: skip
    parser.add_argument(
        "--tracing", choices=["off", "on", "both"], default="off",
        help="off: no spans (and the cost of the hooks); on: every run's spans collected; both: alternated",
    )  # fmt: skip
    print(json.dumps(asyncio.run(main(parser.parse_args())), indent=2, ensure_ascii=False))
