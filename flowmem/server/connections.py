"""What every connection of ``flowmem serve`` meets below the requests: a header deadline and a limit.

uvicorn closes a kept-alive connection that waits longer than ``server.idle_timeout`` for its next request,
but sets no deadline on a request's headers: a connection that sends nothing, or sends its headers a byte
at a time (slowloris), would stay open for ever, and enough of them starve the server. So:

- a request's headers must arrive whole within ``server.header_timeout`` seconds of the connection's
  start (on a kept-alive connection: of the request's first byte). Otherwise the connection is closed,
  after a 408 if part of a request had arrived (a connection that sent nothing is closed without a word,
  as browsers open spare connections they may never use);
- a request's headers may take at most ``MAX_HEADER_BYTES`` (64 KiB; 431 beyond, and the connection
  closed): httptools sets no limit, so within the deadline a client could send gigabytes of one header;
- a request on a connection beyond ``server.max_connections`` open at once is answered 503, and that
  connection closed.

Bodies and answers have their own deadlines, in :mod:`flowmem.server.limits` (every path meets them).
The rules live in a subclass of uvicorn's httptools protocol (``uvicorn[standard]`` brings httptools),
passed to uvicorn as its HTTP protocol class: the one place that sees a connection before a request.
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import ClassVar

from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from flowmem.config.schema import Server
from flowmem.server.errors import HeadersTooLargeError, OverloadedError, SlowClientError, response_bytes, send_error

# Far above real requests (a browser's cookies and a bearer key are a few KiB); a fixed rule, not a setting.
MAX_HEADER_BYTES = 65_536


def guarded_protocol(settings: Server) -> type[GuardedProtocol]:
    """uvicorn's HTTP protocol class with ``settings``' header deadline and connection limit."""

    class Configured(GuardedProtocol):
        header_timeout = settings.header_timeout
        max_connections = settings.max_connections

    return Configured


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a header deadline and a connection limit (see the module docstring)."""

    header_timeout: ClassVar[float] = 10.0
    max_connections: ClassVar[int] = 100
    _header_deadline: asyncio.TimerHandle | None = None
    _request_begun = False
    _header_bytes = 0  # bytes received while the current request's headers were incomplete

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()  # the first request's headers, or nothing at all, within header_timeout

    def data_received(self, data: bytes) -> None:
        waiting_for_headers = self._header_deadline is not None
        super().data_received(data)
        if waiting_for_headers and self._header_deadline is not None:  # and still incomplete after this data
            self._header_bytes += len(data)
            if self._header_bytes > MAX_HEADER_BYTES and not self.transport.is_closing():
                self._disarm_header_deadline()
                too_large = f"the request's headers are larger than {MAX_HEADER_BYTES:,} bytes; send less in them"
                self._refuse_headers(HeadersTooLargeError(too_large))

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._request_begun = True
        if self._header_deadline is None:  # a kept-alive connection's next request
            self._arm_header_deadline()

    def on_headers_complete(self) -> None:
        self._disarm_header_deadline()
        self._request_begun = False
        self._header_bytes = 0
        if len(self.connections) > self.max_connections:
            self.app = self._refuse_overloaded  # this connection only: the answer closes it
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_deadline()
        super().connection_lost(exc)

    def _arm_header_deadline(self) -> None:
        self._header_deadline = self.loop.call_later(self.header_timeout, self._headers_late)

    def _disarm_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    async def _refuse_overloaded(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send_error(send, OverloadedError(
            f"the server has {len(self.connections)} connections open, more than server.max_connections "
            f"({self.max_connections}); retry shortly, or raise the limit"))  # fmt: skip

    def _headers_late(self) -> None:
        self._header_deadline = None
        if self.transport.is_closing():
            return
        if not self._request_begun:
            self.transport.close()
            return
        late = f"the request's headers did not arrive within {self.header_timeout:g} s (server.header_timeout)"
        self._refuse_headers(SlowClientError(late))

    def _refuse_headers(self, exc: Exception) -> None:
        """Answer ``exc`` before the request reached the app (no ASGI cycle yet), and close the connection."""
        status, payload = response_bytes(exc)
        head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\ncontent-type: application/json\r\n"
                f"content-length: {len(payload)}\r\nconnection: close\r\n\r\n")  # fmt: skip
        self.transport.write(head.encode() + payload)
        self.transport.close()
