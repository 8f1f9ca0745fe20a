"""The HTTP service at its edges, in process: redirects that do not trust the Host header, and a key sent twice."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from starlette.datastructures import Headers

from flowmem.app import App
from flowmem.core.errors import InputError
from flowmem.server.app import create_app
from flowmem.server.auth import Keyring
from flowmem.server.mcp_tools import KeyScope

KEY = "edge-key-0123456789abcdef"
OTHER = "other-key-0123456789abcdef"
CONFIG = {
    "embedding_model": {"default": {"backend": "hash"}},
    "vector_store": {"default": {"backend": "memory"}},
    "server": {"api_keys": [{"name": "a", "key": KEY, "workspaces": ["*"]},
                            {"name": "b", "key": OTHER, "workspaces": ["b"], "read_only": True}]},
}  # fmt: skip


def _get(path: str, headers: Sequence[tuple[str, str]]) -> httpx.Response:
    async def main() -> httpx.Response:
        app = App(CONFIG)
        try:
            transport = httpx.ASGITransport(app=create_app(app))
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
                return await client.get(path, headers=list(headers))
        finally:
            await app.aclose()

    return asyncio.run(main())


def test_a_trailing_slash_redirect_stays_on_this_server_whatever_the_host_header() -> None:
    # Starlette builds the Location from the Host header: a link to /v1/memories/ sent with a forged Host
    # redirected the client (and its Authorization header, if it follows) to another site; behind a proxy that
    # ends TLS, to http://. A relative Location keeps the client where it is.
    response = _get("/v1/memories/?user_id=alice", [("Host", "localhost:1"), ("Authorization", f"Bearer {KEY}")])
    assert response.status_code == 307
    assert response.headers["location"] == "/v1/memories?user_id=alice"


@pytest.mark.parametrize("header", ["Authorization", "X-API-Key"])
def test_a_key_header_sent_twice_is_refused(header: str) -> None:
    # The route read the last Authorization header; the OpenAPI security dependency (and a proxy) the first.
    value = (lambda key: f"Bearer {key}") if header == "Authorization" else (lambda key: key)
    response = _get("/v1/memories?user_id=alice", [(header, value(OTHER)), (header, value(KEY))])
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_input"
    assert error["message"] == f"{header}: is sent twice; send the API key once, in one header"
    assert KEY not in response.text and OTHER not in response.text


def test_mcp_refuses_a_key_header_sent_twice_too() -> None:
    request: Any = SimpleNamespace(headers=Headers(raw=[(b"authorization", f"Bearer {OTHER}".encode()),
                                                        (b"authorization", f"Bearer {KEY}".encode())]))  # fmt: skip
    ctx: Any = SimpleNamespace(request_context=SimpleNamespace(request=request))
    with pytest.raises(InputError, match="Authorization: is sent twice"):
        KeyScope(Keyring(App(CONFIG).config.server.api_keys))(ctx, "b", "alice", write=False)


def test_the_server_does_not_render_every_librarys_info_line() -> None:
    """The MCP SDK configures the root logger when the app is built: at INFO it rendered (rich) the Elasticsearch
    client's line for every round trip, a third of the event loop's time under load. Warnings still show."""
    probe = (
        "import logging\n"
        "from flowmem.app import App\n"
        "from flowmem.server.app import create_app\n"
        f"create_app(App({CONFIG!r}))\n"
        "transport = logging.getLogger('elastic_transport.transport')\n"
        "print(transport.isEnabledFor(logging.INFO), transport.isEnabledFor(logging.WARNING))\n"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert shown.stdout.split() == ["False", "True"], shown.stderr[-2000:]
