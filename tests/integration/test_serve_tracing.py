"""``flowmem serve`` with ``tracing.exporter: otlp`` sends its spans to a real OTLP/HTTP receiver: one run in this
test process that decodes what arrives with the OpenTelemetry protobuf definitions. One ``personal_retrieve`` search
gives a run span and one child span per op of the run (the same ops, in the same order, as the search's own trace),
each with its timing, and nothing the user said or asked. Without the SDK, the server refuses to start (exit 2)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

trace_service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")

from flowmem.testing.serve_process import ServeProcess, free_port  # noqa: E402

SAID = "I keep three beehives on the roof of my flat in Alfama"
ASKED = "where are my beehives kept?"


class Receiver(ThreadingHTTPServer):
    """An OTLP/HTTP traces endpoint: every span it is sent, decoded (``ExportTraceServiceRequest``)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.spans: list[Any] = []
        self.raw: list[bytes] = []
        self.paths: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1/traces"


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = trace_service.ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.server.paths.append(self.path)
        self.server.raw.append(body)
        self.server.spans += [s for r in request.resource_spans for scope in r.scope_spans for s in scope.spans]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()
        self.wfile.write(trace_service.ExportTraceServiceResponse().SerializeToString())

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _attributes(span: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for kv in span.attributes:
        kind = kv.value.WhichOneof("value")
        values[kv.key] = getattr(kv.value, kind) if kind else None
    return values


def test_one_search_sends_a_span_per_op_with_timings_and_no_content(receiver: Receiver, tmp_path: Path) -> None:
    overrides = ["embedding_model.default.backend=hash", "llm.default.backend=none",
                 "vector_store.default.backend=memory", "tracing.exporter=otlp", f"tracing.endpoint={receiver.url}",
                 "tracing.service_name=flowmem-test"]  # fmt: skip
    with ServeProcess(overrides, home=tmp_path / "home", env={"OTEL_BSP_SCHEDULE_DELAY": "100"}) as server:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            added = http.post("/v1/memories", json={"text": SAID, "user_id": "alice"})
            assert added.status_code == 200, added.text
            found = http.post("/v1/search", json={"query": ASKED, "user_id": "alice", "explain": True})
            assert found.status_code == 200, found.text
            assert http.get("/v1/memories", params={"user_id": "alice"}).status_code == 200  # an id in the URL
        trace = found.json()["explain"]["trace"]
        assert SAID in found.json()["memories"][0]["content"]
        deadline = time.monotonic() + 30
        runs: list[Any] = []
        while time.monotonic() < deadline and not runs:
            runs = [s for s in receiver.spans if _attributes(s).get("flowmem.flow.id") == trace["flow_id"]]
            time.sleep(0.1)
    assert runs, f"no span of run {trace['flow_id']} arrived; got {[s.name for s in receiver.spans]}"
    [run] = runs
    assert set(receiver.paths) == {"/v1/traces"}
    attributes = _attributes(run)
    assert run.name == "search_memory personal_retrieve"
    assert attributes["gen_ai.operation.name"] == "search_memory" and attributes["flowmem.workspace_id"] == "default"
    assert attributes["flowmem.memories.count"] == len(found.json()["memories"]) >= 1
    assert attributes["flowmem.memories.top_score"] > 0
    ops = sorted((s for s in receiver.spans if s.parent_span_id == run.span_id), key=lambda s: s.start_time_unix_nano)
    # one span per op of the run: the ops the search's own trace lists, at the same positions
    assert sorted((_attributes(s)["flowmem.op.name"], _attributes(s)["flowmem.op.position"]) for s in ops) == sorted(
        (span["op"], span["position"]) for span in trace["spans"]
    )
    assert len(ops) >= 4 and all(s.trace_id == run.trace_id and s.name.startswith("op ") for s in ops)
    for span in [run, *ops]:  # timings: each span starts and ends, inside its run
        assert 0 < span.start_time_unix_nano <= span.end_time_unix_nano
        assert (
            run.start_time_unix_nano <= span.start_time_unix_nano and span.end_time_unix_nano <= run.end_time_unix_nano
        )
    assert all(_attributes(s)["flowmem.op.status"] == "ok" for s in ops)
    # only flowmem's spans (FastAPI's own request spans, which carry the raw path and query, are off)
    assert all(s.name.startswith(("search_memory ", "update_memory ", "op ")) for s in receiver.spans)
    assert run.parent_span_id == b""
    sent = b"".join(receiver.raw)
    for words in ("beehives", "Alfama", "alice", SAID, ASKED):  # no memory content, no query, no user id
        assert words.encode() not in sent, words
    assert b"flowmem-test" in sent  # the resource's service.name


def test_the_spans_still_batched_are_sent_when_the_server_stops(tmp_path: Path) -> None:
    """``console``: the spans as JSON on stdout; a batch delay of a minute, so only the flush at SIGTERM sends them
    (uvicorn raises the signal again once it is done, so the flush is the lifespan's)."""
    overrides = ["embedding_model.default.backend=hash", "llm.default.backend=none",
                 "vector_store.default.backend=memory", "tracing.exporter=console"]  # fmt: skip
    log = tmp_path / "serve.log"
    with ServeProcess(overrides, home=tmp_path / "home", env={"OTEL_BSP_SCHEDULE_DELAY": "60000"}, log=log) as server:
        found = httpx.post(f"{server.url}/v1/search", json={"query": ASKED, "user_id": "alice", "explain": True})
        assert found.status_code == 200, found.text
        time.sleep(0.5)
        assert '"name": "search_memory personal_retrieve"' not in server.output()  # still batched
    printed = log.read_text(encoding="utf-8")
    assert printed.count('"name": "search_memory personal_retrieve"') == 1, printed[-3000:]
    assert printed.count('"name": "op ') == len(found.json()["explain"]["trace"]["spans"])
    assert "beehives" not in printed


def test_a_server_asked_to_export_without_the_sdk_refuses_to_start(tmp_path: Path) -> None:
    hidden = tmp_path / "no-sdk" / "opentelemetry" / "sdk"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError(\"No module named 'opentelemetry.sdk'\")\n")
    env = {"PYTHONPATH": str(tmp_path / "no-sdk"), "FLOWMEM_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "flowmem", "serve", "tracing.exporter=otlp", "--port", str(free_port())],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "tracing.exporter is 'otlp', which needs the OpenTelemetry SDK" in done.stderr
    assert "pip install 'flowmem[otel]'" in done.stderr and "Traceback" not in done.stderr
