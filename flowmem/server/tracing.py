"""``flowmem serve`` exporting its spans: the config's ``tracing`` section installs an OpenTelemetry SDK tracer
provider for the process, so the spans :mod:`flowmem.flow.telemetry` makes of every flow run and op leave it.

```yaml
tracing:
  exporter: otlp                                  # none (default) | console | otlp
  endpoint: http://127.0.0.1:4318/v1/traces       # an OpenTelemetry Collector, Jaeger, Tempo, …
```

``otlp`` sends OTLP/HTTP (protobuf) with the SDK's own exporter, in batches (``OTEL_BSP_*`` tune them), and
flushes what is left when the server stops; ``console`` prints each span as JSON on stdout. The SDK is an optional
extra (``pip install 'flowmem[otel]'``): without it, a server configured to export refuses to start with the
``pip install`` that fixes it (exit 2) rather than run without the spans it was asked for.
"""

from __future__ import annotations

from collections.abc import Callable

from flowmem.config.schema import Tracing
from flowmem.errors import BackendUnavailableError

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
    return provider.shutdown
