"""Redirects that stay on this server: a relative ``Location``, never one built from the request's Host header.

Starlette answers a path with a slash too many or too few (``/v1/memories/``, ``/mcp``) with a 307 to the
other spelling, and builds that URL from the request's ``Host`` header and scheme: a forged Host sends the
client, and the API key it sends along, to another site; behind a proxy that ends TLS, to ``http://``.
flowmem itself never redirects elsewhere, so every ``Location`` keeps only its path and query.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class RelativeRedirects:
    """ASGI middleware: the ``Location`` of every redirect becomes relative (path and query)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_relative(message: Message) -> None:
            if message["type"] == "http.response.start" and 300 <= message["status"] < 400:
                headers = [(name, relative(value) if name == b"location" else value) for name, value in
                           message.get("headers", [])]  # fmt: skip
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_relative)


def relative(location: bytes) -> bytes:
    """``location`` without its scheme and host (``http://evil.example/v1/x?y=1`` → ``/v1/x?y=1``)."""
    parts = urlsplit(location.decode("latin-1"))
    path = "/" + parts.path.lstrip("/")  # never `//host/…`: a browser reads that as another site
    return (f"{path}?{parts.query}" if parts.query else path).encode("latin-1")
