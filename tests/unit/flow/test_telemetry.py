"""OpenTelemetry spans of a flow run (one per op, children of the run's) and run listeners."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from flowmem.app import App
from flowmem.core.trace import Trace
from flowmem.flow import telemetry
from flowmem.flow.response import Response

CONFIG = {"embedding_model": {"default": {"backend": "hash"}}, "vector_store": {"default": {"backend": "memory"}}}
SECRET_FACT = "I keep bees on my balcony in Turin"
QUERY = "what do I keep on my balcony?"


@pytest.fixture
def exporter(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    # The process's provider can be set once; the test's is handed out for its duration only.
    found = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(found))
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    yield found
    provider.shutdown()


def _retrieve(exporter: InMemorySpanExporter | None = None) -> Response:
    async def main() -> Response:
        async with App(CONFIG) as app:
            await app.memories.add(text=SECRET_FACT, user_id="priya", workspace_id="home")
            if exporter is not None:
                exporter.clear()  # the add's spans
            return await app.run("personal_retrieve", query=QUERY, user_id="priya", workspace_id="home")

    return asyncio.run(main())


def test_one_span_per_op_of_personal_retrieve_each_timed_under_the_run(exporter: InMemorySpanExporter) -> None:
    response = _retrieve(exporter)
    assert response.trace is not None and response.memories
    spans = exporter.get_finished_spans()
    [run] = [s for s in spans if s.name == "search_memory personal_retrieve"]
    ops = [s for s in spans if s is not run]
    assert sorted(s.name for s in ops) == sorted(f"op {s.op}" for s in response.trace.spans)
    assert len(ops) == len(response.trace.spans) >= 8
    for span in ops:
        assert span.parent is not None and span.parent.span_id == run.context.span_id
        assert span.start_time is not None and span.end_time is not None and span.end_time >= span.start_time
        assert run.start_time <= span.start_time and span.end_time <= run.end_time  # type: ignore[operator]
        assert span.attributes is not None and span.attributes["flowmem.op.status"] == "ok"
    attributes = dict(run.attributes or {})
    assert attributes["gen_ai.operation.name"] == "search_memory"
    assert attributes["gen_ai.memory.scope"] == "user"
    assert attributes["flowmem.workspace_id"] == "home"
    assert attributes["flowmem.flow.id"] == response.trace.flow_id
    assert attributes["flowmem.memories.count"] == len(response.memories)
    assert attributes["flowmem.memories.top_score"] == response.memories[0].scores["final"]
    assert len(str(attributes["flowmem.user.hash"])) == 16
    recall = next(s for s in ops if s.name == "op retrieve_memory_op")
    assert (recall.attributes or {})["flowmem.flow.op.note.recalled"] == 1


def test_spans_carry_no_query_content_or_user_id(exporter: InMemorySpanExporter) -> None:
    _retrieve(exporter)
    values = [str(v) for span in exporter.get_finished_spans() for v in (span.attributes or {}).values()]
    words = {"priya", "bees", "balcony", "Turin", "keep"}
    assert not [v for v in values if any(w in v for w in words)]


def test_a_write_flow_is_an_update_memory_span(exporter: InMemorySpanExporter) -> None:
    async def main() -> list[ReadableSpan]:
        async with App(CONFIG) as app:
            await app.memories.add(text=SECRET_FACT, user_id="priya")
        return list(exporter.get_finished_spans())

    names = [s.name for s in asyncio.run(main()) if s.parent is None]
    assert names and all(n.startswith("update_memory ") for n in names), names


def test_without_an_sdk_provider_no_spans_are_made() -> None:
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    assert telemetry.RunTelemetry.start() is None


def test_a_provider_set_after_the_first_run_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    # start() skips get_tracer_provider() while no provider is set (its environment lookup costs ~2 us a run): a
    # provider the application sets later (trace.set_tracer_provider sets this global) must still be found.
    assert telemetry.RunTelemetry.start() is None
    provider = TracerProvider()
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", provider)
    started = telemetry.RunTelemetry.start()
    assert started is not None and telemetry._cached[0] is provider
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", None)
    assert telemetry.RunTelemetry.start() is None


def test_run_listeners_hear_every_run_with_its_trace() -> None:
    heard: list[tuple[Trace, str | None]] = []
    remove = telemetry.add_run_listener(lambda t, error: heard.append((t, error)))
    try:
        response = _retrieve()
    finally:
        remove()
    assert heard[-1] == (response.trace, None)
    assert {t.flow for t, _ in heard} >= {"personal_retrieve"}
