"""``/metrics`` of a real ``flowmem serve``: per-route request counts and latency histograms, per-op latencies,
flow runs, errors and the store's size, scraped after requests."""

from __future__ import annotations

from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from flowmem.testing.serve_process import ServeProcess

CONFIG = "embedding_model:\n  default: {backend: hash}\n"


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_metrics_after_requests(tmp_path: Path) -> None:
    config = tmp_path / "serve.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    with (
        ServeProcess(["-c", str(config)], home=tmp_path / "home") as server,
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        for fact in ("I keep bees on my balcony", "My sister Ana is a nurse in Porto"):
            assert http.post("/v1/memories", json={"user_id": "priya", "text": fact}).status_code == 200
        for _ in range(3):
            found = http.post("/v1/search", json={"user_id": "priya", "query": "what do I keep?"})
            assert found.status_code == 200, found.text
        memory_id = found.json()["memories"][0]["memory_id"]
        assert http.get(f"/v1/memories/{memory_id}").status_code == 200
        assert http.post("/v1/search", json={"query": "no user"}).status_code == 422
        assert http.get("/v1/nothing-here").status_code == 404
        scraped = http.get("/metrics")

    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain")
    text = scraped.text
    samples = _samples(text)

    def value(name: str, **labels: str) -> float:
        return samples.get((name, frozenset(labels.items())), 0.0)

    search = {"method": "POST", "route": "/v1/search"}
    assert value("flowmem_http_requests_total", **search, status="200") == 3
    assert value("flowmem_http_requests_total", **search, status="422") == 1
    assert value("flowmem_http_request_duration_seconds_count", **search) == 4
    assert value("flowmem_http_request_duration_seconds_bucket", **search, le="+Inf") == 4
    assert value("flowmem_http_request_duration_seconds_sum", **search) > 0
    # The route's template, never the id itself; a path no route has is one label, not one per path.
    one = {"method": "GET", "route": "/v1/memories/{memory_id}", "status": "200"}
    assert value("flowmem_http_requests_total", **one) == 1
    assert memory_id not in text
    assert value("flowmem_http_requests_total", method="GET", route="(unmatched)", status="404") == 1
    # What start-up built is out of every full collection (flowmem.server.run.freeze_startup): ~140,000 objects.
    assert value("flowmem_gc_frozen_objects") > 10_000
    # Flows and ops: three searches ran personal_retrieve, each op of it timed.
    assert value("flowmem_flow_runs_total", flow="personal_retrieve", outcome="ok") == 3
    assert value("flowmem_op_duration_seconds_count", op="retrieve_memory_op", status="ok") == 3
    assert value("flowmem_op_duration_seconds_count", op="fuse_rerank_op", status="ok") == 3
    assert value("flowmem_store_memories") == 2
    assert value("flowmem_store_workspaces") == 1
    assert ("flowmem_embedding_queued", frozenset({("model", "default")})) in samples
    # The model's work: two facts and three queries at least (sent one after another: each query computed anew).
    computed = value("flowmem_embedding_texts_computed", model="default")
    assert computed >= 5 and 5 <= value("flowmem_embedding_model_calls", model="default") <= computed
    assert ("flowmem_embedding_cpu_seconds", frozenset({("model", "default")})) in samples  # 0: hash does not count
    # Each of those calls had its turn (server.embedding_calls), and the computations took some wall time.
    assert value("flowmem_embedding_turns", model="default") >= 5
    assert ("flowmem_embedding_wait_seconds", frozenset({("model", "default")})) in samples
    assert value("flowmem_embedding_compute_seconds", model="default") > 0
    assert "priya" not in text and "bees" not in text  # nobody's name or words
