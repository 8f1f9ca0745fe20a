#!/usr/bin/env python3
"""`flowmem serve` under load: N concurrent clients, 90 % search / 10 % add, then a count check.

Starts a real ``flowmem serve`` (a throwaway FLOWMEM_HOME, the offline local e5 embedder unless
``--embedder hash``), seeds memories through the API, then runs ``--clients`` clients for ``--duration``
seconds, each sending one request after another. Reports requests/s, searches/s, p50/p95/p99 per kind,
errors (must be 0) and acknowledged adds missing afterwards (must be 0).

``--sigterm-at S`` sends SIGTERM to the server S seconds into the run (the server drains and stops;
requests after that fail to connect and were never acknowledged), restarts it on the same store and
checks that every acknowledged add is there. ``--store elasticsearch`` uses ``--es-url`` (or
``FLOWMEM_ES_URL``); without one it starts a throwaway node with ``scripts/elasticsearch_node.py`` and
stops it afterwards.

The clients run in this process (one asyncio loop, httpx) on the same cores as the server; the report
says what else was running (load average), and where the CPU went per request (Linux: from /proc): the server's
event-loop thread (HTTP, JSON, the flow's Python), its other threads (the e5 engine's workers, the store's
thread), and this process's clients. CPU time is counted work, less moved by other load than latency.

    .venv/bin/python scripts/bench_serve.py                      # 16 clients, 60 s, local store
    .venv/bin/python scripts/bench_serve.py --store elasticsearch       # starts its own node
    .venv/bin/python scripts/bench_serve.py --duration 30 --sigterm-at 15
    .venv/bin/python scripts/bench_serve.py --queries unique    # no two searches alike (see --help)
    .venv/bin/python scripts/bench_serve.py op.retrieve_memory_op.params.top_k=20   # the server with an override
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_store import elasticsearch_node
from benchlib import machine, percentiles

from flowmem.testing.serve_process import ServeProcess

TOPICS = ["cello", "Lisbon", "bees", "marathon", "sister Ann", "peanut allergy", "Rust", "night shifts",
          "sailing", "the dentist", "a blue bicycle", "Kyoto", "sourdough", "chess club", "the new job",
          "a cat named Miso"]  # fmt: skip
QUESTIONS = ["what instrument do I play?", "where did I move?", "what pets do I have?", "what did I do last weekend?",
             "who is my sister?", "what can't I eat?", "what am I learning?", "when do I work?"]  # fmt: skip


def _config(args: argparse.Namespace, directory: Path, index: str) -> Path:
    lines = [f"embedding_model:\n  default: {{backend: {args.embedder}}}"]
    if args.store == "elasticsearch":
        lines.append(f"vector_store:\n  default:\n    backend: elasticsearch\n    params: {{hosts: '{args.es_url}', "
                     f"index: {index}}}")  # fmt: skip
    calls = f", embedder_concurrency: {args.embedder_concurrency}" if args.embedder_concurrency else ""
    calls += f", search_concurrency: {args.search_concurrency}" if args.search_concurrency else ""
    lines.append(f"server: {{request_timeout: 60{calls}}}")
    path = directory / "bench.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class Run:
    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = {"search": [], "add": []}
        self.errors: list[str] = []
        self.unacknowledged = 0
        self.acknowledged: set[str] = set()


async def _client(
    url: str, users: int, deadline: float, run: Run, rng: random.Random, write_ratio: float, unique: bool
) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        while time.monotonic() < deadline:
            user = f"u{rng.randrange(users)}"
            is_add = rng.random() < write_ratio
            if is_add:
                body = {"text": f"I {rng.choice(['like', 'tried', 'talked about'])} {rng.choice(TOPICS)} "
                                f"({uuid.uuid4().hex[:10]})", "user_id": user}  # fmt: skip
                path = "/v1/memories"
            else:
                query = rng.choice(QUESTIONS)
                # unique: no two searches share a text, so none shares another's query embedding (embed_one joins
                # simultaneous identical calls: with 8 questions, repeats in the embedder's queue are free).
                body = {"query": f"{query} ({uuid.uuid4().hex[:10]})" if unique else query, "user_id": user}
                path = "/v1/search"
            started = time.perf_counter()
            try:
                response = await http.post(path, json=body)
            except httpx.TransportError:
                run.unacknowledged += 1  # the server is stopping or gone: nothing was acknowledged
                await asyncio.sleep(0.05)
                continue
            elapsed = (time.perf_counter() - started) * 1000
            if response.status_code != 200:
                run.errors.append(f"{path} {response.status_code} {response.text[:200]}")
                continue
            run.latency["add" if is_add else "search"].append(elapsed)
            if is_add:
                run.acknowledged |= {a["memory_id"] for a in response.json()["actions"] if a["action"] != "skip"}


async def _stored_ids(url: str) -> set[str]:
    ids: set[str] = set()
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        offset: int | None = 0
        while offset is not None:
            page = (await http.get("/v1/memories", params={"limit": 1000, "offset": offset})).json()
            ids |= {m["memory_id"] for m in page["memories"]}
            offset = page["next_offset"]
    return ids


async def _seed(url: str, users: int, per_user: int) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        for u in range(users):
            for i in range(per_user):
                text = f"I {['like', 'tried', 'talked about'][i % 3]} {TOPICS[(u + i) % len(TOPICS)]} ({u}-{i})"
                response = await http.post("/v1/memories", json={"text": text, "user_id": f"u{u}"})
                response.raise_for_status()


async def _load(args: argparse.Namespace, server: ServeProcess) -> tuple[Run, float]:
    run = Run()
    started = time.monotonic()
    deadline = started + args.duration
    clients = [
        _client(server.url, args.users, deadline, run, random.Random(seed), args.write_ratio, args.queries == "unique")
        for seed in range(args.clients)
    ]

    async def stopper() -> None:
        if args.sigterm_at is not None:
            await asyncio.sleep(args.sigterm_at)
            server.terminate()

    await asyncio.gather(stopper(), *clients)
    return run, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--write-ratio", type=float, default=0.1)
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--seed-per-user", type=int, default=25, help="memories per user before the run")
    parser.add_argument("--store", choices=["local", "elasticsearch"], default="local")
    parser.add_argument("--es-url", default=os.environ.get("FLOWMEM_ES_URL"), help="default: start a node")
    parser.add_argument("--embedder", choices=["local", "hash"], default="local")
    parser.add_argument("--embedder-concurrency", type=int, help="default: the server's (one per core, at most 4)")
    parser.add_argument("--search-concurrency", type=int, help="searches in the flow at once; default: the server's")
    parser.add_argument(
        "--queries",
        choices=["repeat", "unique"],
        default="repeat",
        help="repeat: 8 questions, repeated; unique: every search's text distinct (no shared query embeddings)",
    )
    parser.add_argument("--sigterm-at", type=float, help="SIGTERM the server this many seconds into the run")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--metrics-out", type=Path, help="save the server's /metrics, scraped after the load, here")
    parser.add_argument(
        "overrides", nargs="*", metavar="key=value", help="config overrides for the server (an A/B of one setting)"
    )
    args = parser.parse_args()
    if args.store != "elasticsearch":
        return _bench(args)
    with elasticsearch_node(args.es_url) as node:
        args.es_url = node["url"]
        return _bench(args)


def _work_totals(scraped: str) -> dict[tuple[str, str], float]:
    """From /metrics: the default embedding model's totals and each op's time sum and count (ok runs)."""
    totals: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(scraped):
        for sample in family.samples:
            if sample.name.startswith("flowmem_embedding_") and sample.labels.get("model") == "default":
                totals[("embedding", sample.name.removeprefix("flowmem_embedding_"))] = sample.value
            elif sample.name.startswith("flowmem_search_"):  # the searches' turns (server.search_concurrency)
                totals[("search", sample.name.removeprefix("flowmem_search_"))] = sample.value
            elif sample.name.startswith("flowmem_op_duration_seconds_") and sample.labels.get("status") == "ok":
                totals[(sample.labels["op"], sample.name.rsplit("_", 1)[1])] = sample.value
    return totals


def _server_work(before: str, after: str, requests: int) -> dict[str, Any]:
    """What the server did during the load (the seeding left out): the embedding model's work (texts per model
    call, its CPU per request, the wait of a call for its turn and the wall time of a model call), a search's wait
    for its turn in the search flow, and each op's mean time per run (a search's retrieve_memory_op includes its
    wait for the query vector)."""
    start, end = _work_totals(before), _work_totals(after)
    done = {key: value - start.get(key, 0.0) for key, value in end.items()}
    texts, calls = done.get(("embedding", "texts_computed"), 0), done.get(("embedding", "model_calls"), 0)
    turns = done.get(("embedding", "turns"), 0)
    searches = done.get(("search", "turns"), 0)
    ops = sorted({op for op, _ in done if op not in ("embedding", "search") and done.get((op, "count"))})
    return {
        "embedding_texts_computed": texts,
        "embedding_model_calls": calls,
        "embedding_texts_per_model_call": round(texts / calls, 2) if calls else None,
        "embedding_cpu_ms_per_request": round(done.get(("embedding", "cpu_seconds"), 0) * 1000 / max(requests, 1), 2),
        # wall clock: an embed call's wait for its turn, and a model call's time from its turn to its rows
        "embedding_wait_ms_per_call": round(done.get(("embedding", "wait_seconds"), 0) * 1000 / turns, 2)
        if turns
        else None,
        "embedding_compute_ms_per_model_call": round(done.get(("embedding", "compute_seconds"), 0) * 1000 / calls, 2)
        if calls
        else None,
        # a search's wait for its turn in the search flow (server.search_concurrency), before any op of it ran
        "search_concurrency": end.get(("search", "concurrency")),
        "search_running_peak": end.get(("search", "running_peak")),
        "search_wait_ms_per_search": round(done.get(("search", "wait_seconds"), 0) * 1000 / searches, 2)
        if searches
        else None,
        "op_mean_ms": {op: round(done[(op, "sum")] * 1000 / done[(op, "count")], 2) for op in ops},
    }


def _thread_cpu(pid: int | None) -> dict[str, float]:
    """CPU seconds so far of process ``pid``'s main thread (its event loop) and of its other threads, from /proc
    (empty elsewhere)."""
    tasks = Path(f"/proc/{pid}/task")
    if pid is None or not tasks.is_dir():
        return {}
    tick = os.sysconf("SC_CLK_TCK")
    cpu = {"event_loop_thread": 0.0, "other_threads": 0.0}
    for task in tasks.iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended
            continue
        seconds = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        cpu["event_loop_thread" if task.name == str(pid) else "other_threads"] += seconds
    return cpu


def _cpu_per_request(
    before: dict[str, float], after: dict[str, float], clients: float, requests: int
) -> dict[str, float]:
    """Milliseconds of CPU per request: the server's event loop, its other threads, the clients."""
    if not before or not requests:
        return {}
    spent = {f"server_{k}": after[k] - before[k] for k in before} | {"clients": clients}
    return {k: round(v * 1000 / requests, 2) for k, v in spent.items()}


def _node_work(es_url: str | None, index: str) -> dict[str, float]:
    """So far: the Elasticsearch node's process CPU (ms; every index's work, the node being this benchmark's or
    shared) and, on the run's indices, the searches (shard queries), refreshes and merges' time."""
    if not es_url:
        return {}
    base = es_url.rstrip("/")
    nodes = httpx.get(f"{base}/_nodes/_local/stats/process", timeout=30).json()["nodes"]
    work = {"node_cpu_ms": float(next(iter(nodes.values()))["process"]["cpu"]["total_in_millis"])}
    total = httpx.get(f"{base}/{index}*/_stats/search,refresh,merge", timeout=30).json()["_all"]["total"]
    work |= {"queries": total["search"]["query_total"], "query_ms": total["search"]["query_time_in_millis"],
             "fetches": total["search"]["fetch_total"], "refreshes": total["refresh"]["total"],
             "merge_ms": total["merges"]["total_time_in_millis"]}  # fmt: skip
    # HTTP requests (round trips) the node answered, and the bytes of its answers, per route (every client's)
    http = httpx.get(f"{base}/_nodes/_local/stats/http", params={"filter_path": "nodes.*.http.routes"}, timeout=30)
    nodes_http: dict[str, Any] = http.json().get("nodes", {})
    node_http: dict[str, Any] = next(iter(nodes_http.values()), {})
    routes: dict[str, Any] = node_http.get("http", {}).get("routes", {})
    for route, stats in routes.items():
        work[f"http {route}"] = stats["requests"]["count"]
        work[f"http_response_kb {route}"] = stats["responses"]["total_size_in_bytes"] / 1024
    work["http_requests"] = sum(stats["requests"]["count"] for stats in routes.values())
    return work


def _node_per_request(before: dict[str, float], after: dict[str, float], requests: int) -> dict[str, float]:
    """The node's work during the load, per request (CPU, shard queries and their time, refreshes, merge time, HTTP
    requests and answer kilobytes per route)."""
    if not before or not requests:
        return {}
    # a route first used during the load is missing before it; a route no request used during the load is left out
    changed = {key: after[key] - before.get(key, 0.0) for key in after}
    return {
        f"{key}_per_request": round(value / requests, 3)
        for key, value in changed.items()
        if value or not key.startswith("http")
    }


def _delete_indices(es_url: str, index: str) -> None:
    """Delete the run's memories index and its side indices (history, ledger, sessions): deletes need names."""
    base = es_url.rstrip("/")
    found = httpx.get(f"{base}/_cat/indices/{index}*", params={"format": "json", "h": "index"}).json()
    names = [row["index"] for row in found]
    if names:
        httpx.delete(f"{base}/{','.join(names)}").raise_for_status()


def _route_latency(scraped: str) -> dict[str, dict[str, float]]:
    """The server's own view from /metrics (flowmem.server.metrics): requests, mean and p95 bound per route."""
    routes: dict[str, dict[str, Any]] = {}
    for family in text_string_to_metric_families(scraped):
        if family.name != "flowmem_http_request_duration_seconds":
            continue
        for sample in family.samples:
            route = routes.setdefault(f"{sample.labels['method']} {sample.labels['route']}", {"buckets": []})
            if sample.name.endswith("_bucket"):
                route["buckets"].append((float(sample.labels["le"]), sample.value))
            else:
                route[sample.name.rsplit("_", 1)[1]] = sample.value
    report = {}
    for name, route in sorted(routes.items()):
        count = route.get("count", 0)
        if count:
            p95 = next(le for le, n in sorted(route["buckets"]) if n >= 0.95 * count)
            report[name] = {
                "requests": count,
                "mean_ms": round(route["sum"] / count * 1000, 2),
                "p95_at_most_ms": p95 * 1000,
            }
    return report


def _bench(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="flowmem-bench-serve-") as tmp:
        directory = Path(tmp)
        index = f"flowmem-bench-{uuid.uuid4().hex[:8]}"  # Elasticsearch: its indices are deleted afterwards
        config = _config(args, directory, index)
        server = ServeProcess(["-c", str(config), *args.overrides], home=directory / "home").start()
        try:
            asyncio.run(_seed(server.url, args.users, args.seed_per_user))
            load_before = os.getloadavg()
            metrics_before = httpx.get(f"{server.url}/metrics", timeout=30).text
            pid = server.process.pid if server.process is not None else None
            es_url = args.es_url if args.store == "elasticsearch" else None
            node_before = _node_work(es_url, index)
            cpu_before, clients_before = _thread_cpu(pid), time.process_time()
            run, elapsed = asyncio.run(_load(args, server))
            cpu_after, clients_cpu = _thread_cpu(pid), time.process_time() - clients_before
            node_after = _node_work(es_url, index)
            scraped = httpx.get(f"{server.url}/metrics", timeout=30).text if args.sigterm_at is None else ""
            if args.sigterm_at is not None:
                server.wait(120)
                server = ServeProcess(["-c", str(config), *args.overrides], home=directory / "home").start()
            stored = asyncio.run(_stored_ids(server.url))
        finally:
            server.stop()
            print(server.output()[-1500:] if "--verbose" in sys.argv else "", end="")
            if args.store == "elasticsearch":
                _delete_indices(args.es_url, index)

    searches, adds = run.latency["search"], run.latency["add"]
    report: dict[str, Any] = {
        "machine": machine(),
        "load_average_before": [round(x, 2) for x in load_before],
        "setup": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items() if k != "json"},
        "seconds": round(elapsed, 1),
        "requests_per_s": round((len(searches) + len(adds)) / elapsed, 1),
        "searches_per_s": round(len(searches) / elapsed, 1),
        "adds_per_s": round(len(adds) / elapsed, 1),
        "search_ms": percentiles(searches, 50, 95, 99) if len(searches) > 1 else {},
        "add_ms": percentiles(adds, 50, 95, 99) if len(adds) > 1 else {},
        "all_ms": percentiles(searches + adds, 50, 95, 99) if len(searches) + len(adds) > 1 else {},
        "errors": len(run.errors),
        "error_examples": run.errors[:3],
        "unacknowledged_after_sigterm": run.unacknowledged,
        "acknowledged_adds": len(run.acknowledged),
        "acknowledged_adds_missing": len(run.acknowledged - stored),
        "server_metrics": _route_latency(scraped),
        "cpu_ms_per_request": _cpu_per_request(cpu_before, cpu_after, clients_cpu, len(searches) + len(adds)),
        "server_work": _server_work(metrics_before, scraped, len(searches) + len(adds)) if scraped else {},
        "elasticsearch_work": _node_per_request(node_before, node_after, len(searches) + len(adds)),
    }
    if args.metrics_out is not None:
        args.metrics_out.write_text(scraped, encoding="utf-8")
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key:>30}: {value}")
    return 0 if report["errors"] == 0 and report["acknowledged_adds_missing"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
