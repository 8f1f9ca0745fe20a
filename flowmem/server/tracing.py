"""``flowmem serve`` exporting its spans: the config's ``tracing`` section installs an OpenTelemetry SDK tracer
provider for the process, so the spans :mod:`flowmem.flow.telemetry` makes of every flow run and op leave it.

```yaml
tracing:
  exporter: otlp                                  # none (default) | console | otlp
  endpoint: http://127.0.0.1:4318/v1/traces       # an OpenTelemetry Collector, Jaeger, Tempo, …
```

``otlp`` sends OTLP/HTTP (protobuf) with the SDK's own exporter, in batches (``OTEL_BSP_*`` tune them), and
flushes what is left when the server stops (:func:`flush_spans`, from the server's lifespan); ``console`` prints
each span as JSON on stdout. FastAPI's own telemetry is off (:func:`fastapi_telemetry_off`). The SDK is an
optional extra (``pip install 'flowmem[otel]'``): without it, a server configured to export refuses to start with
the ``pip install`` that fixes it (exit 2) rather than run without the spans it was asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flowmem.config.schema import Tracing
from flowmem.core.errors import BackendUnavailableError

INSTALL = "pip install 'flowmem[otel]'"


def export_spans(settings: Tracing) -> Callable[[], None] | None:
    """Install a tracer provider exporting as ``settings`` say; returns what flushes and stops it (``None`` for
    ``exporter: none``: nothing installed, spans cost one check per run).

    Raises:
        BackendUnavailableError: The OpenTelemetry SDK (or, for ``otlp``, its OTLP/HTTP exporter) is not installed.
    """
    if settings.exporter == "none":
        return None
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

        exporter: SpanExporter
        if settings.exporter == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter(endpoint=settings.endpoint)
        else:
            exporter = ConsoleSpanExporter(service_name=settings.service_name)
    except ImportError as exc:
        raise BackendUnavailableError(
            f"tracing.exporter is '{settings.exporter}', which needs the OpenTelemetry SDK ({exc}): {INSTALL} "
            "(or set tracing.exporter=none)"
        ) from exc
    provider = TracerProvider(resource=Resource.create({"service.name": settings.service_name}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    _installed[:] = [provider]
    return provider.shutdown


_installed: list[Any] = []  # the provider export_spans installed, if any


def flush_spans() -> None:
    """Send the spans still batched by the provider :func:`export_spans` installed (nothing if none).

    The server's lifespan calls it as the server stops: uvicorn raises the SIGTERM it caught again once its shutdown
    is done, which ends the process before anything after ``uvicorn.Server.run`` could flush.
    """
    for provider in _installed:
        provider.force_flush()


def fastapi_telemetry_off() -> dict[str, Any]:
    """``FastAPI(**fastapi_telemetry_off())``: no request spans, metrics or logs of FastAPI's own.

    FastAPI (0.16x on) traces each request itself once a tracer provider is installed, with the raw path and query
    in its attributes — user ids (``/v1/users/alice``, ``?user_id=alice``) and memory ids — which flowmem's spans
    leave out; its logs would record validation failures with the input. The spans of flowmem's flows and ops say
    what a request did, ``/metrics`` its HTTP latency. An older FastAPI has no such telemetry: nothing to turn off.
    """
    import inspect

    from fastapi import FastAPI

    if "telemetry" not in inspect.signature(FastAPI).parameters:
        return {}
    return {"telemetry": {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}}
