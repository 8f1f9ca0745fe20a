"""Which hosts and web pages ``flowmem serve`` answers: one rule for every path (the API, ``/mcp``, ``/healthz``).

DNS rebinding: a web page on ``attacker.example`` re-points its own name at 127.0.0.1, and the victim's
browser then sends the page's requests to the keyless loopback server, with ``Host: attacker.example``.
So a request is answered only when its ``Host`` names this server: a loopback name (``localhost``,
``127.0.0.1``, ``::1``), the bound address, or a name in ``server.allowed_hosts`` — any host on a wildcard
bind (``0.0.0.0``) with no names configured, since that bind needs API keys, which such a page cannot
send. Otherwise 421, naming the setting.

A request carrying an ``Origin`` (a browser's, from a web page) is answered only when the page is on an
allowed host or listed in ``server.cors_origins``; otherwise 403. CORS headers are sent for the listed
pages only (with none listed, no browser page elsewhere can read an answer).

The MCP SDK's own Host/Origin check is switched off where ``/mcp`` is mounted: this one covers it.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from flowmem.config.hosts import ANY, LOOPBACK_NAMES, WILDCARD_BINDS, header_host, host_name, origin_host, web_origin
from flowmem.config.schema import Server
from flowmem.server.errors import ForeignOriginError, MisdirectedError, send_error

GUARDED = ("http", "websocket")


def add_host_rules(api: FastAPI, settings: Server, bind: str) -> None:
    """Guard every path of ``api`` (served on ``bind``) by the Host and Origin rules, and add CORS if configured.

    Call it after every other middleware is added: the guard runs first.
    """
    if settings.cors_origins:
        api.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_methods=["*"],
                           allow_headers=["*"], expose_headers=["mcp-session-id"])  # fmt: skip
    api.add_middleware(HostGuard, hosts=answered_hosts(settings, bind), origins=frozenset(settings.cors_origins))


def answered_hosts(settings: Server, bind: str) -> frozenset[str] | None:
    """The host names requests may be addressed to (None: any; see the module docstring)."""
    configured = frozenset(settings.allowed_hosts)
    if ANY in configured or (not configured and bind in WILDCARD_BINDS):
        return None
    extra = () if bind in WILDCARD_BINDS else (host_name(bind),)
    return frozenset((*LOOPBACK_NAMES, *extra, *configured))


class HostGuard:
    """Refuses a request addressed to another host (421) or sent by another web page (403)."""

    def __init__(self, app: ASGIApp, *, hosts: frozenset[str] | None, origins: frozenset[str]):
        self.app = app
        self.hosts = hosts
        self.origins = origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in GUARDED:
            refusal = self.refusal(_header(scope, b"host"), _header(scope, b"origin"))
            if refusal is not None:
                await send_error(send, refusal)
                return
        await self.app(scope, receive, send)

    def refusal(self, host: str | None, origin: str | None) -> Exception | None:
        """Why a request with these ``Host`` and ``Origin`` headers is refused; None if it is not."""
        if self.hosts is not None and (host is None or header_host(host) not in self.hosts):
            shown = "no Host header" if host is None else f"Host {host!r}"
            return MisdirectedError(
                f"this server does not answer requests with {shown}: it answers to {', '.join(sorted(self.hosts))}. "
                "If clients reach it by another name, add the name to server.allowed_hosts"
            )
        if origin is not None and not self.page_allowed(origin):
            listed = ", ".join(sorted(self.origins)) or "none"
            return ForeignOriginError(
                f"requests from the web page {origin!r} are not accepted: it is not on a host this server answers "
                f"to, nor in server.cors_origins (listed: {listed})"
            )
        return None

    def page_allowed(self, origin: str) -> bool:
        if ANY in self.origins or self.hosts is None or origin_host(origin) in self.hosts:
            return True
        try:
            return web_origin(origin) in self.origins
        except ValueError:
            return False


def _header(scope: Scope, name: bytes) -> str | None:
    # Repeated headers are joined, as HTTP reads them: a repeated Host then names no host (refused).
    values = [bytes(value).decode("latin-1") for key, value in scope.get("headers", []) if key == name]
    return ", ".join(values) if values else None
