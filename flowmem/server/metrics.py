"""``GET /metrics`` of ``flowmem serve``: Prometheus metrics of the requests, the flow runs and the store.

Written with ``prometheus_client`` (the Prometheus project's own client) in a registry of the server's own, in
the text exposition format a Prometheus server scrapes:

- ``flowmem_http_requests_total{method, route, status}`` and ``flowmem_http_request_duration_seconds{method,
  route}`` (a histogram): every request, with the route's template (``/v1/memories/{memory_id}``, never the
  ids themselves), ``(unmatched)`` for a path no route has; statuses 4xx/5xx are the errors;
- ``flowmem_flow_runs_total{flow, outcome}`` (``ok``, ``degraded``, ``failed``) and
  ``flowmem_flow_duration_seconds{flow}``; ``flowmem_op_duration_seconds{op, status}`` per op occurrence's
  label and ``flowmem_op_degradations_total{op, kind}``: every flow run of the process (the memory service's
  calls, ``/v1/run``, MCP tools), from :func:`flowmem.flow.telemetry.add_run_listener`;
- ``flowmem_store_memories`` and ``flowmem_store_workspaces``, read from the store at each scrape;
  ``flowmem_embedding_queued{model}``: embed calls waiting for their turn (``server.embedding_calls``) now;
  ``flowmem_embedding_texts_computed{model}``, ``flowmem_embedding_model_calls{model}`` (waiting calls joined are
  one) and ``flowmem_embedding_cpu_seconds{model}`` (the local model's engine calls' CPU; 0 for the others),
  ``flowmem_embedding_turns{model}`` (embed calls that had their turn), ``flowmem_embedding_wait_seconds{model}``
  (the time they waited for it) and ``flowmem_embedding_compute_seconds{model}`` (the computations' wall time),
  each since the start;
- the searches' turns (``server.search_concurrency``, :mod:`flowmem.server.admission`): ``flowmem_search_concurrency``
  (the limit), ``flowmem_search_running`` and ``flowmem_search_queued`` now, and since the start
  ``flowmem_search_running_peak`` (the most searches in the flow at once), ``flowmem_search_turns`` (searches that
  had their turn) and ``flowmem_search_wait_seconds`` (the time they waited for it, summed);
- ``flowmem_gc_frozen_objects``: the objects ``flowmem serve`` left out of garbage collection when it started
  (:func:`flowmem.server.run.freeze_startup`).

No label names a workspace, a user or an API key: ``/metrics`` needs no key (like ``/healthz``), so it says how
much and how fast, never whose.
"""

from __future__ import annotations

import gc
from time import perf_counter
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from flowmem.app import App
from flowmem.core.trace import Trace
from flowmem.server.admission import SearchQueue

# From a millisecond (an op on a small store) to half a minute (a flow waiting on a slow LLM).
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
UNMATCHED = "(unmatched)"


class Metrics:
    """The server's metrics: fed by :class:`MetricsMiddleware` and :meth:`observe_run`, read by :meth:`render`."""

    def __init__(self, app: App, searches: SearchQueue | None = None):
        self.app = app
        self.searches = searches
        self.registry = registry = CollectorRegistry()
        self.requests = Counter(
            "flowmem_http_requests", "HTTP requests answered", ["method", "route", "status"], registry=registry
        )
        self.latency = Histogram(
            "flowmem_http_request_duration_seconds", "Time to answer an HTTP request", ["method", "route"],
            buckets=BUCKETS, registry=registry,
        )  # fmt: skip
        self.runs = Counter("flowmem_flow_runs", "Flow runs", ["flow", "outcome"], registry=registry)
        self.run_latency = Histogram(
            "flowmem_flow_duration_seconds", "Time of a flow run", ["flow"], buckets=BUCKETS, registry=registry
        )
        self.op_latency = Histogram(
            "flowmem_op_duration_seconds", "Time of an op's run in a flow", ["op", "status"], buckets=BUCKETS,
            registry=registry,
        )  # fmt: skip
        self.degradations = Counter(
            "flowmem_op_degradations", "Ops that did less than their best", ["op", "kind"], registry=registry
        )
        self.store_memories = Gauge("flowmem_store_memories", "Memories in the store", registry=registry)
        self.store_workspaces = Gauge("flowmem_store_workspaces", "Workspaces in the store", registry=registry)
        self.embedding_queued = Gauge(
            "flowmem_embedding_queued", "Embed calls waiting for their turn", ["model"], registry=registry
        )
        self.embedding_work = {
            "computed": Gauge("flowmem_embedding_texts_computed", "Texts embedded since the start", ["model"],
                              registry=registry),
            "computations": Gauge("flowmem_embedding_model_calls", "Model calls since the start", ["model"],
                                  registry=registry),
            "cpu_seconds": Gauge("flowmem_embedding_cpu_seconds", "CPU seconds of a model computing in process "
                                 "since the start", ["model"], registry=registry),
            "turns_taken": Gauge("flowmem_embedding_turns", "Embed calls that had their turn since the start",
                                 ["model"], registry=registry),
            "waited_seconds": Gauge("flowmem_embedding_wait_seconds", "Seconds embed calls waited for their turn "
                                    "since the start (summed)", ["model"], registry=registry),
            "computing_seconds": Gauge("flowmem_embedding_compute_seconds", "Wall seconds of the model's "
                                       "computations since the start (summed)", ["model"], registry=registry),
        }  # fmt: skip
        self.search_queue = {
            "limit": Gauge("flowmem_search_concurrency", "Searches allowed in the search flow at once "
                           "(server.search_concurrency)", registry=registry),
            "running": Gauge("flowmem_search_running", "Searches in the search flow now", registry=registry),
            "waiting": Gauge("flowmem_search_queued", "Searches waiting for their turn now", registry=registry),
            "peak": Gauge("flowmem_search_running_peak", "The most searches in the search flow at once since the "
                          "start", registry=registry),
            "turns": Gauge("flowmem_search_turns", "Searches that had their turn since the start", registry=registry),
            "waited": Gauge("flowmem_search_wait_seconds", "Seconds searches waited for their turn since the start "
                            "(summed)", registry=registry),
        }  # fmt: skip
        self.gc_frozen = Gauge(
            "flowmem_gc_frozen_objects", "Objects left out of garbage collection at start-up", registry=registry
        )

    def observe_run(self, trace: Trace, error: str | None) -> None:
        """A flow run ended (a :func:`~flowmem.flow.telemetry.add_run_listener` listener)."""
        degraded = False
        for span in trace.spans:
            self.op_latency.labels(span.op, span.status).observe(span.duration_ms / 1000.0)
            for item in span.degradations:
                degraded = True
                self.degradations.labels(span.op, item.kind).inc(item.count)
        outcome = "failed" if error is not None else "degraded" if degraded else "ok"
        self.runs.labels(trace.flow, outcome).inc()
        self.run_latency.labels(trace.flow).observe(trace.duration_ms / 1000.0)

    async def render(self) -> Response:
        """The exposition, with the store's sizes read now."""
        stats: dict[str, Any] = await self.app.memories.stats()
        workspaces = stats.get("workspaces") or {}
        self.store_workspaces.set(len(workspaces))
        self.store_memories.set(sum(n for n in workspaces.values() if isinstance(n, int)))
        for name in self.app.config.embedding_model:
            model = self.app.embedding_model(name)
            self.embedding_queued.labels(name).set(model.queued)
            for attribute, gauge in self.embedding_work.items():
                gauge.labels(name).set(getattr(model, attribute))
        if self.searches is not None:
            for attribute, gauge in self.search_queue.items():
                gauge.set(getattr(self.searches, attribute))
        self.gc_frozen.set(gc.get_freeze_count())
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


class MetricsMiddleware:
    """Counts and times every HTTP request by its route's template (outermost, so refusals count too)."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics):
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = perf_counter()
        status = [500]  # an exception that escapes is answered 500 by the error middleware outside

        async def watched_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        finally:
            route = scope.get("route")  # set by the router on this scope once a route matched
            template = getattr(route, "path", None) or UNMATCHED
            method = scope.get("method", "")
            self.metrics.requests.labels(method, template, str(status[0])).inc()
            self.metrics.latency.labels(method, template).observe(perf_counter() - started)
