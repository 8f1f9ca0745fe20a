"""Starting the servers: ``flowmem serve`` (uvicorn) and ``flowmem mcp`` (stdio).

Shutdown: on SIGTERM or Ctrl-C uvicorn stops accepting connections, lets the requests in flight
finish (at most ``server.graceful_timeout`` seconds), then runs the app's lifespan end, which closes
the store. A write the server acknowledged (answered 200) is therefore committed before the process
exits; a write cut off by the grace period was never acknowledged.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import sys

from loguru import logger

from flowmem.app import App
from flowmem.server.auth import Keyring, check_bind, is_loopback
from flowmem.server.tracing import export_spans


def serve(app: App, host: str | None = None, port: int | None = None) -> None:
    """Serve ``app`` over HTTP until SIGTERM/SIGINT (blocking).

    Raises:
        ConfigError: A non-loopback ``host`` without API keys.
        BackendUnavailableError: ``tracing.exporter`` set and the OpenTelemetry SDK not installed.
    """
    import uvicorn

    from flowmem.server.app import create_app
    from flowmem.server.connections import guarded_protocol

    settings = app.config.server
    host = settings.host if host is None else host
    port = settings.port if port is None else port
    keyring = Keyring(settings.api_keys)
    check_bind(host, keyring)
    stop_tracing = export_spans(app.config.tracing)  # before anything runs: a missing SDK refuses to start
    # The server's own lines (a 5xx answered, a stop) are its log, as uvicorn's are: on without -v.
    logger.enable("flowmem.server")
    if keyring.open:
        print(f"flowmem serve: no server.api_keys configured: loopback only ({host}), every workspace open "
              "to anyone on this machine", file=sys.stderr)  # fmt: skip
    elif not is_loopback(host):
        print(f"flowmem serve: {len(settings.api_keys)} API keys; listening on {host} (use TLS in front of it "
              "beyond a private network)", file=sys.stderr)  # fmt: skip
    config = uvicorn.Config(
        create_app(app, host),
        host=host,
        port=port,
        timeout_graceful_shutdown=int(settings.graceful_timeout),
        http=guarded_protocol(settings),  # header deadline and connection limit (flowmem.server.connections)
        timeout_keep_alive=settings.idle_timeout,
        log_level="info",
        access_log=False,  # paths and statuses only would be fine, but never risk a key in a logged query string
        lifespan="on",
        server_header=False,
    )

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)  # the app's lifespan start (its models), then the listening sockets
            freeze_startup()

    try:
        Server(config).run()
    finally:
        if stop_tracing is not None:
            stop_tracing()  # the spans still batched, sent


def freeze_startup() -> None:
    """Leave what the process built to start (modules, classes, the config, the app) out of every later garbage
    collection: ``gc.freeze`` after a collection of what start-up left behind.

    Python's full collections walk every tracked object; a server's are mostly those of its start-up, which
    live as long as it does. Under ``scripts/bench_serve.py --queries unique`` they were ~150,000 objects and
    each full collection held the GIL ~100 ms (8 in a 30 s run on 2 loaded cores): every request in flight
    waited for it, the p99's tail. What requests create afterwards is collected as before.
    """
    gc.collect()
    gc.freeze()


def serve_stdio(app: App, workspace_id: str, user_id: str | None) -> None:
    """Serve the MCP tools over stdin/stdout for one workspace (and user), until stdin closes."""
    from flowmem.server.mcp_tools import FixedScope, build_mcp
    from flowmem.server.unreadable import check_stdin

    server = build_mcp(app, FixedScope(workspace_id, user_id))
    check_stdin()  # a request with a lone surrogate gets a tool error, not silence
    logger.info("flowmem mcp: workspace {}, user {}", workspace_id, user_id or "(given per call)")

    async def main() -> None:
        try:
            await server.run_stdio_async()
        finally:
            await app.aclose()

    asyncio.run(main())
