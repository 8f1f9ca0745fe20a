"""The ASGI application of ``flowmem serve``: the HTTP API, ``/mcp``, health checks, limits and errors.

Why FastAPI (on Starlette, served by uvicorn): the API's request bodies are pydantic models already
(flowmem's whole schema is pydantic), so FastAPI validates them and writes the OpenAPI page (``/docs``,
``/openapi.json``) from the same types with no second description to keep in step; API-key auth is
one dependency (its documented pattern for security), declared once per route and shown in ``/docs``.
Plain Starlette would need the validation and the OpenAPI schema by hand. The MCP SDK's
streamable-HTTP endpoint is a Starlette app, which FastAPI mounts as it is. uvicorn finishes in-flight
requests on SIGTERM before the lifespan closes the app (see :mod:`flowmem.server.run`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from loguru import logger
from mcp.server.transport_security import TransportSecuritySettings
from starlette.exceptions import HTTPException as StarletteHTTPException

from flowmem.app import App
from flowmem.core.errors import FlowmemError, Problem
from flowmem.core.redact import redact_text
from flowmem.core.version import __version__
from flowmem.flow.telemetry import add_run_listener
from flowmem.server.auth import Keyring
from flowmem.server.docs import NOTICES, add_offline_docs
from flowmem.server.errors import ErrorType, describe, error_body
from flowmem.server.hosts import add_host_rules
from flowmem.server.limits import LimitsMiddleware
from flowmem.server.mcp_tools import KeyScope, build_mcp
from flowmem.server.metrics import Metrics, MetricsMiddleware
from flowmem.server.redirects import RelativeRedirects
from flowmem.server.responses import Health, Ready
from flowmem.server.routes import ServerState, router
from flowmem.server.tracing import fastapi_telemetry_off, flush_spans
from flowmem.server.ui.app import create_ui

HTTP_TYPES: dict[int, ErrorType] = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized", 403: "forbidden"}


def create_app(app: App, host: str | None = None) -> FastAPI:
    """The HTTP service for ``app`` (configured by ``app.config.server``; ``host``: where it listens, if not
    ``server.host``); it closes ``app`` when it stops."""
    settings = app.config.server
    state = ServerState(app, Keyring(settings.api_keys), settings)
    mcp = build_mcp(app, KeyScope(state.keyring), state.keyring.secrets, state.searches)
    # Stateless JSON: each MCP request stands alone, so any server process can answer it (several behind one
    # Elasticsearch) and SIGTERM has no open streams to wait for. Keys are checked per tool call (KeyScope).
    # The SDK's Host/Origin check is off: add_host_rules guards /mcp with the rule of every other path.
    mcp_app = mcp.streamable_http_app(
        streamable_http_path="/", stateless_http=True, json_response=True,
        max_request_body_size=settings.max_body_bytes,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )  # fmt: skip

    metrics = Metrics(app, state.searches)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        for name in app.config.embedding_model:
            app.embedding_model(name).limit_concurrency(settings.embedding_calls(), settings.embedder_batch)
        stop_counting = add_run_listener(metrics.observe_run)
        try:
            async with mcp.session_manager.run():
                yield
        finally:
            stop_counting()
        # uvicorn runs this after in-flight requests finished (or server.graceful_timeout passed).
        await app.aclose()
        flush_spans()  # the spans still batched, if the config's tracing section exports them
        logger.info("flowmem serve: stopped; every acknowledged write is in the store")

    api = FastAPI(
        title="flowmem",
        version=__version__,
        description="Memory for assistants and agents: add, search, edit and forget memories; run flows. "
        "Send your API key as `Authorization: Bearer KEY`. MCP (streamable HTTP) is at `/mcp`. These pages are "
        f"Swagger UI (Apache-2.0) and ReDoc (MIT), served by flowmem: [their licences]({NOTICES}).",
        lifespan=lifespan,
        docs_url=None,  # add_offline_docs: the pages without a CDN
        redoc_url=None,
        **fastapi_telemetry_off(),  # its request spans would carry user ids (flowmem.server.tracing)
    )
    api.state.flowmem = state
    add_offline_docs(api)
    api.include_router(router)
    api.mount("/mcp", mcp_app)
    api.mount("/ui", create_ui(state))  # the web inspector (flowmem.server.ui): pages, under the same guards
    api.add_middleware(RelativeRedirects)  # Starlette's slash redirects would build Location from the Host header
    api.add_middleware(LimitsMiddleware, max_body_bytes=settings.max_body_bytes, timeout=settings.request_timeout,
                       body_timeout=settings.body_timeout)  # fmt: skip
    api.add_middleware(MetricsMiddleware, metrics=metrics)
    add_host_rules(api, settings, host or settings.host)
    _add_health(api, state)
    api.add_api_route("/metrics", metrics.render, methods=["GET"], include_in_schema=False)
    _add_error_handlers(api, state)
    return api


def _add_health(api: FastAPI, state: ServerState) -> None:
    @api.get("/healthz", tags=["health"], summary="The process is up", response_model=Health)
    async def healthz() -> dict[str, Any]:
        return {"status": "ok"}

    not_ready: dict[int | str, dict[str, Any]] = {
        503: {"model": Ready, "description": "what answered (checks), and the error of what did not"}
    }

    @api.get("/readyz", tags=["health"], summary="The store and the embedding models answer", response_model=Ready,
             responses=not_ready)  # fmt: skip
    async def readyz() -> JSONResponse:
        checks: dict[str, str] = {}
        try:
            await state.memories.stats(workspace_id="__readyz__")
            checks["vector_store"] = "ok"
            for name in state.app.config.embedding_model:
                await state.app.embedding_model(name).embed(["ready?"], kind="query")
                checks[f"embedding_model.{name}"] = "ok"
        except Exception as exc:
            _, body = describe(exc, state.secrets)
            return JSONResponse({"status": "unavailable", "checks": checks, **body}, status_code=503)
        return JSONResponse({"status": "ready", "checks": checks})


def _add_error_handlers(api: FastAPI, state: ServerState) -> None:
    async def flowmem_error(request: Request, exc: Exception) -> JSONResponse:
        status, body = describe(exc, state.secrets)
        if status >= 500:
            logger.warning("{} {}: {}", request.method, request.url.path, body["error"]["message"])
        return JSONResponse(body, status_code=status)

    async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        problems = [
            Problem(".".join(str(part) for part in error["loc"]), _validation_message(error)) for error in exc.errors()
        ]
        message = "; ".join(p.render() for p in problems) or "the request is not valid JSON of the documented shape"
        return JSONResponse(error_body("invalid_request", redact_text(message, state.secrets), problems), 422)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        kind = HTTP_TYPES.get(exc.status_code, "http_error")
        message = str(exc.detail)
        if exc.status_code == 404:
            message = f"no route {request.method} {request.url.path}; /docs lists the API"
        return JSONResponse(error_body(kind, message), exc.status_code, headers=exc.headers)

    async def internal(request: Request, exc: Exception) -> JSONResponse:
        logger.error("{} {}: internal error {}: {}", request.method, request.url.path, type(exc).__name__,
                     redact_text(str(exc), state.secrets))  # fmt: skip
        status, body = describe(exc, state.secrets)
        return JSONResponse(body, status_code=status)

    api.add_exception_handler(FlowmemError, flowmem_error)
    api.add_exception_handler(RequestValidationError, invalid_request)
    api.add_exception_handler(StarletteHTTPException, http_error)
    api.add_exception_handler(Exception, internal)


def _validation_message(error: Any) -> str:
    if error.get("type") == "missing":
        return "is required"
    if error.get("type") == "extra_forbidden":
        return "is not a field of this request (see /docs)"
    if error.get("type") == "json_invalid":
        return f"the body is not valid JSON: {error.get('ctx', {}).get('error', error['msg'])}"
    shown = repr(error.get("input"))
    shown = shown if len(shown) <= 80 else shown[:80] + "…"
    return f"{error['msg']} (got {shown})"
