"""What every HTTP request meets before and around the routes: a body size limit and a time limit.

One ASGI middleware, so the rules hold for every path (the API, ``/mcp``, an unknown path) and no route
can forget them:

- a body over ``server.max_body_bytes`` is answered 413 without being read further (a declared
  ``Content-Length`` is refused before a byte is read; a chunked body as soon as it passes the limit);
- an API request (``/v1/…``) that has not answered within ``server.request_timeout`` seconds is answered
  504. A write cut off this way was not acknowledged; it may or may not have been applied (each write
  is one atomic store call: all of it or nothing). ``/mcp`` is left to the MCP SDK's own session rules.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from flowmem.server.errors import RequestTimeoutError, TooLargeError, describe

TIMED_PREFIX = "/v1/"


class LimitsMiddleware:
    """Body size and request time limits (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, max_body_bytes: int, timeout: float):
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = TooLargeError(
            f"the request body is larger than {self.max_body_bytes:,} bytes (server.max_body_bytes); "
            "send less per request (e.g. fewer messages), or raise the limit"
        )
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            await _answer(send, too_large)
            return
        state = {"read": 0, "over": False, "started": False}

        async def counted_receive() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                state["read"] += len(message.get("body", b""))
                if state["read"] > self.max_body_bytes:
                    state["over"] = True
                    raise too_large
            return message

        async def tracked_send(message: Message) -> None:
            if state["over"]:
                return  # whatever the app answers to the cut-off body, the answer is 413 (below)
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        call = self.app(scope, counted_receive, tracked_send)
        try:
            if scope.get("path", "").startswith(TIMED_PREFIX):
                await asyncio.wait_for(call, self.timeout)
            else:
                await call
        except asyncio.TimeoutError:
            if not state["started"]:
                await _answer(send, RequestTimeoutError(
                    f"the request took longer than {self.timeout:g} s (server.request_timeout) and was stopped; "
                    "a write stopped this way was not acknowledged"))  # fmt: skip
            return
        except TooLargeError:
            pass
        if state["over"] and not state["started"]:
            await _answer(send, too_large)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _answer(send: Send, exc: Exception) -> None:
    status, body = describe(exc)
    payload: Any = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                            (b"connection", b"close")]})  # fmt: skip
    await send({"type": "http.response.body", "body": payload})
