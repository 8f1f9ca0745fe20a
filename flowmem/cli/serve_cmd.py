"""``flowmem serve`` (the HTTP API and MCP over HTTP) and ``flowmem mcp`` (MCP over stdio).

Thin: build the app, hand it to :mod:`flowmem.server.run`. The server modules are imported when the
command runs, so building the parser stays cheap.
"""

from __future__ import annotations

import argparse
from typing import Any

from flowmem.cli.options import checked_workspace, open_app
from flowmem.schema.kinds import DEFAULT_WORKSPACE


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    serve = sub.add_parser(
        "serve", parents=[common], help="serve the memory API over HTTP (and MCP at /mcp)",
        description="Serve the memory service over HTTP: /v1/memories, /v1/search, /v1/flows/NAME/run, forget, "
        "/healthz, /readyz; API docs at /docs; MCP (streamable HTTP) at /mcp. Callers send an API key from "
        "server.api_keys (each bound to workspaces, read-only or read-write). Without keys the server binds to "
        "loopback only. SIGTERM finishes the requests in flight, then stops.",
        epilog="keys in a config file:  server: {api_keys: [{name: alice, key: ${FLOWMEM_KEY_ALICE}, "
        "workspaces: [alice]}]}",
    )  # fmt: skip
    serve.add_argument("--host", help="address to bind (default: server.host, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default: server.port, 8765)")
    serve.add_argument(
        "--search-concurrency", metavar="N", help="searches running at once, the others waiting their turn in order of "
        "arrival (sets server.search_concurrency; default: eight per core)",
    )  # fmt: skip
    serve.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    serve.set_defaults(handler=cmd_serve)

    mcp = sub.add_parser(
        "mcp", parents=[common], help="serve the memory tools over MCP (stdio)",
        description="An MCP server on stdin/stdout for one workspace (and user): add_memory, search_memories, "
        "list_memories, update_memory, delete_memory, memory_history. Start it from an MCP client's config.",
    )  # fmt: skip
    mcp.add_argument("-w", "--workspace", default=DEFAULT_WORKSPACE, help="the workspace it serves (default: default)")
    mcp.add_argument("-u", "--user", dest="user_id", help="the user it serves (default: given in each call)")
    mcp.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    mcp.set_defaults(handler=cmd_mcp)


def cmd_serve(args: argparse.Namespace) -> int:
    from flowmem.core.errors import InputError, Problem
    from flowmem.server.auth import Keyring, check_bind
    from flowmem.server.run import serve

    if args.port is not None and not 0 <= args.port <= 65535:
        raise InputError(Problem("--port", f"must be 0 to 65535, got {args.port}"))
    if args.search_concurrency is not None:
        if not (args.search_concurrency.isdigit() and int(args.search_concurrency) >= 1):
            raise InputError(Problem("--search-concurrency", f"must be a whole number, 1 or more, got "
                                     f"{args.search_concurrency!r}"))  # fmt: skip
        args.overrides = [*args.overrides, f"server.search_concurrency={int(args.search_concurrency)}"]
    app = open_app(args)
    try:
        check_bind(args.host or app.config.server.host, Keyring(app.config.server.api_keys))
    except Exception:
        app.close()
        raise
    serve(app, args.host, args.port)  # the server's lifespan closes the app
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from flowmem.server.run import serve_stdio

    workspace = checked_workspace(args.workspace) or DEFAULT_WORKSPACE
    serve_stdio(open_app(args), workspace, args.user_id)
    return 0
