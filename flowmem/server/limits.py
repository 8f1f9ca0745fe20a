"""What every HTTP request meets before and around the routes: a body size limit and time limits.

One ASGI middleware, so the rules hold for every path (the API, ``/mcp``, an unknown path) and no route
can forget them:

- a body over ``server.max_body_bytes`` is answered 413 without being read further (a declared
  ``Content-Length`` is refused before a byte is read; a chunked body as soon as it passes the limit);
- a body that has not arrived whole within ``server.body_timeout`` seconds of the request's start is
  answered 408 (a client sending its body a byte at a time would hold a connection and a task forever);
- an API request (``/v1/…``) that has not answered within ``server.request_timeout`` seconds is answered
  504. A write cut off this way was not acknowledged; it may or may not have been applied (each write
  is one atomic store call: all of it or nothing). ``/mcp`` is left to the MCP SDK's own session rules.

Headers, idle connections and the number of connections are the connection's business:
:mod:`flowmem.server.connections`.
"""

from __future__ import annotations

import asyncio

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from flowmem.server.errors import RequestTimeoutError, SlowClientError, TooLargeError, send_error

TIMED_PREFIX = "/v1/"


class LimitsMiddleware:
    """Body size, body time and request time limits (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, max_body_bytes: int, timeout: float, body_timeout: float):
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.timeout = timeout
        self.body_timeout = body_timeout

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
            await send_error(send, too_large)
            return
        loop = asyncio.get_running_loop()
        body_deadline = loop.time() + self.body_timeout
        state = {"read": 0, "body_done": False, "started": False}
        refusal: list[Exception] = []  # why the request is answered here, not by the app (set once)

        async def counted_receive() -> Message:
            if state["body_done"]:
                return await receive()  # e.g. waiting for the client to disconnect: no deadline
            try:
                # anyio's scope, not asyncio.wait_for: wait_for (before 3.12) swallows an outer cancellation
                # (server.request_timeout) when the body it waited for arrives at the same moment.
                with anyio.fail_after(max(body_deadline - loop.time(), 0)):
                    message = await receive()
            except TimeoutError:
                refusal.append(SlowClientError(
                    f"the request body did not arrive within {self.body_timeout:g} s (server.body_timeout); "
                    "send it at once, or raise the limit"))  # fmt: skip
                raise refusal[-1] from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                state["body_done"] = True
            if message["type"] == "http.request":
                state["read"] += len(message.get("body", b""))
                if state["read"] > self.max_body_bytes:
                    refusal.append(too_large)
                    raise too_large
            return message

        async def tracked_send(message: Message) -> None:
            if refusal:
                return  # whatever the app answers to the cut-off body, the answer is the refusal (below)
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        call = self.app(scope, counted_receive, tracked_send)
        try:
            if scope.get("path", "").startswith(TIMED_PREFIX):
                await asyncio.wait_for(call, self.timeout)
            else:
                await call
        except Exception as exc:
            if refusal:
                pass  # the app failed on the cut-off body (however it says so): the answer is the refusal
            elif isinstance(exc, asyncio.TimeoutError):
                if not state["started"]:
                    await send_error(send, RequestTimeoutError(
                        f"the request took longer than {self.timeout:g} s (server.request_timeout) and was stopped; "
                        "a write stopped this way was not acknowledged"))  # fmt: skip
                return
            else:
                raise
        if refusal and not state["started"]:
            await send_error(send, refusal[0])


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
