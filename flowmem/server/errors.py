"""Every error the HTTP service answers, in one shape, with the CLI's words.

```json
{"error": {"type": "invalid_input", "message": "text: is empty; give the fact to remember",
           "problems": [{"where": "text", "message": "is empty; give the fact to remember", "detail": ""}]}}
```

``message`` is what ``flowmem`` prints after ``flowmem: error:``; ``problems`` lists each problem of a
:class:`~flowmem.core.errors.ProblemsError` (one entry otherwise). Never a stack trace; secrets and API keys
are redacted from every message.

| status | type | raised by |
|---|---|---|
| 400 | invalid_input | :class:`InputError`, :class:`FlowSyntaxError`, ``ScopeError`` (bad values: the CLI's exit 2) |
| 401 / 403 | unauthorized / forbidden | :class:`~flowmem.server.auth.AuthError`; 403 also a web page's ``Origin`` |
| 404 | not_found | :class:`NotFoundError` (a memory, a flow), an unknown path |
| 405 | method_not_allowed | a path that exists, with another method |
| 408 | timeout | a body (or headers) not arrived within ``server.body_timeout`` (``server.header_timeout``) |
| 409 | conflict | :class:`ConflictError`: the request contradicts itself (two workspaces); ``WriteConflictError``: |
|     |          | its user was forgotten while the write ran (nothing stored); ``SessionConflictError`` |
| 413 | too_large | a body over ``server.max_body_bytes`` |
| 421 | misdirected | a ``Host`` this server does not answer to (``server.allowed_hosts``) |
| 431 | too_large | headers over 64 KiB (:mod:`flowmem.server.connections`) |
| 422 | invalid_request | a body that is not the documented JSON |
| 422 | invalid_flow | :class:`ConfigError`, :class:`FlowValidationError` (a flow that cannot run so) |
| 500 | op_failed / internal | :class:`OpExecutionError` (names the op); anything else (a bug: its type only) |
| 503 | unavailable | :class:`BackendUnavailableError` (the store or a model cannot be reached); a connection
  beyond ``server.max_connections`` |
| 504 | timeout | a request over ``server.request_timeout``, :class:`OpTimeoutError` |
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Literal

from starlette.types import Send

from flowmem.core.errors import (
    BackendUnavailableError,
    ConfigError,
    FlowmemError,
    FlowSyntaxError,
    FlowValidationError,
    InputError,
    NotFoundError,
    OpExecutionError,
    OpTimeoutError,
    Problem,
    ProblemsError,
    WriteConflictError,
)
from flowmem.core.redact import redact_text
from flowmem.server.auth import AuthError
from flowmem.vector_store.rules import ScopeError, SessionConflictError


class ConflictError(FlowmemError):
    """A request whose parts contradict each other (409)."""

    exit_code = 2


class TooLargeError(FlowmemError):
    """A request body over the limit (413)."""

    exit_code = 2


class RequestTimeoutError(FlowmemError):
    """A request that took longer than ``server.request_timeout`` (504)."""


class SlowClientError(FlowmemError):
    """A request whose headers or body did not arrive in time (408)."""

    exit_code = 2


class MisdirectedError(FlowmemError):
    """A request addressed to a host this server does not answer to (421)."""

    exit_code = 2


class ForeignOriginError(FlowmemError):
    """A request sent by a web page that may not call this server (403)."""

    exit_code = 2


class HeadersTooLargeError(FlowmemError):
    """A request whose headers are over the limit (431)."""

    exit_code = 2


class OverloadedError(FlowmemError):
    """A request on a connection beyond ``server.max_connections`` (503)."""


# Every ``error.type`` an answer may have (the TypeScript client gets them as a union).
ErrorType = Literal[
    "invalid_input", "invalid_request", "invalid_flow", "unauthorized", "forbidden", "not_found",
    "method_not_allowed", "timeout", "conflict", "too_large", "misdirected", "unavailable", "op_failed", "failed",
    "internal", "http_error",
]  # fmt: skip

# Most specific first: the first class an error is an instance of decides.
STATUS: tuple[tuple[type[BaseException], int, ErrorType], ...] = (
    (OpTimeoutError, 504, "timeout"),
    (RequestTimeoutError, 504, "timeout"),
    (SlowClientError, 408, "timeout"),
    (MisdirectedError, 421, "misdirected"),
    (ForeignOriginError, 403, "forbidden"),
    (HeadersTooLargeError, 431, "too_large"),
    (OverloadedError, 503, "unavailable"),
    (InputError, 400, "invalid_input"),
    (FlowSyntaxError, 400, "invalid_input"),
    (NotFoundError, 404, "not_found"),
    (ConflictError, 409, "conflict"),
    (WriteConflictError, 409, "conflict"),
    (SessionConflictError, 409, "conflict"),
    (ScopeError, 400, "invalid_input"),
    (TooLargeError, 413, "too_large"),
    (ConfigError, 422, "invalid_flow"),
    (FlowValidationError, 422, "invalid_flow"),
    (BackendUnavailableError, 503, "unavailable"),
    (OpExecutionError, 500, "op_failed"),
    (FlowmemError, 500, "failed"),
)
AUTH_TYPES: dict[int, ErrorType] = {401: "unauthorized", 403: "forbidden"}


def error_body(kind: ErrorType, message: str, problems: Iterable[Problem] = ()) -> dict[str, Any]:
    """The JSON body of an error response."""
    listed = [{"where": p.where, "message": p.message, "detail": p.detail} for p in problems]
    return {"error": {"type": kind, "message": message, "problems": listed or [{"where": "", "message": message,
                                                                                  "detail": ""}]}}  # fmt: skip


def describe(exc: BaseException, secrets: Iterable[str] = ()) -> tuple[int, dict[str, Any]]:
    """The status and body answering ``exc`` (any exception), secrets redacted."""
    hidden = list(secrets)

    def clean(text: str) -> str:
        return redact_text(text, hidden)

    if isinstance(exc, AuthError):
        return exc.status, error_body(AUTH_TYPES[exc.status], clean(str(exc)))
    for cls, status, kind in STATUS:
        if isinstance(exc, cls):
            problems: list[Problem] = []
            if isinstance(exc, ProblemsError):
                problems = [Problem(clean(p.where), clean(p.message), clean(p.detail)) for p in exc.problems]
            return status, error_body(kind, clean(str(exc)), problems)
    # Not a FlowmemError: a bug in flowmem. Its type, never its traceback (the server log has the message).
    return 500, error_body("internal", f"internal error: {type(exc).__name__} (the server log has the details)")


def response_bytes(exc: BaseException) -> tuple[int, bytes]:
    """The status and JSON body answering ``exc`` (see :func:`describe`)."""
    status, body = describe(exc)
    return status, json.dumps(body).encode()


async def send_error(send: Send, exc: BaseException) -> None:
    """Answer ``exc`` on an ASGI connection and close it (for middleware: no route, no handler ran)."""
    status, payload = response_bytes(exc)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                            (b"connection", b"close")]})  # fmt: skip
    await send({"type": "http.response.body", "body": payload})
