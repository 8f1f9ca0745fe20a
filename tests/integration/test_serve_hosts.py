"""`flowmem serve` answers only the Host names it is meant to be reached by, on every path (DNS rebinding).

A web page on attacker.example can re-point its own name at 127.0.0.1 and then call the keyless loopback
server from the victim's browser: the request reaches 127.0.0.1:PORT with ``Host: attacker.example:PORT``.
The server refuses such requests (421) on /v1, /mcp and the health checks alike, refuses foreign ``Origin``s
(403), and answers CORS only for the web pages listed in ``server.cors_origins``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flowmem.testing.serve_process import ServeProcess

HASH = "embedding_model:\n  default: {backend: hash}\n"
CONFIGURED = HASH + "server:\n  allowed_hosts: [memory.test]\n  cors_origins: ['http://app.test:3000']\n"
CLIENT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": CLIENT}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


def _serve(tmp: Path, config: str) -> ServeProcess:
    path = tmp / "serve.yaml"
    path.write_text(config, encoding="utf-8")
    return ServeProcess(["-c", str(path)], home=tmp / "home")


@pytest.fixture(scope="module")
def keyless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    with _serve(tmp_path_factory.mktemp("keyless"), HASH) as process:
        yield process


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    with _serve(tmp_path_factory.mktemp("configured"), CONFIGURED) as process:
        yield process


def _requests(server: ServeProcess, headers: dict[str, str]) -> list[httpx.Response]:
    """GET /v1/memories, POST /mcp/ (initialize) and GET /healthz with ``headers``."""
    with httpx.Client(base_url=server.url, timeout=30) as http:
        return [
            http.get("/v1/memories", params={"workspace_id": "alice"}, headers=headers),
            http.post("/mcp/", json=INITIALIZE, headers={**MCP_HEADERS, **headers}),
            http.get("/healthz", headers=headers),
        ]


def _refused(response: httpx.Response, status: int, words: str) -> dict[str, Any]:
    assert response.status_code == status, (response.request.url, response.text)
    error: dict[str, Any] = response.json()["error"]
    assert words in error["message"], error
    return error


def test_a_forged_host_is_refused_on_every_path(keyless: ServeProcess) -> None:
    for response in _requests(keyless, {"Host": f"attacker.example:{keyless.port}"}):
        error = _refused(response, 421, "server.allowed_hosts")
        assert "attacker.example" in error["message"] and "localhost" in error["message"], error


def test_the_loopback_names_are_answered(keyless: ServeProcess) -> None:
    for host in (f"127.0.0.1:{keyless.port}", f"localhost:{keyless.port}", f"[::1]:{keyless.port}", "LOCALHOST"):
        for response in _requests(keyless, {"Host": host}):
            assert response.status_code == 200, (host, response.request.url, response.text)


def test_a_foreign_origin_is_refused_and_no_cors_unless_configured(keyless: ServeProcess) -> None:
    for response in _requests(keyless, {"Origin": "http://attacker.example"}):
        _refused(response, 403, "server.cors_origins")
    with httpx.Client(base_url=keyless.url, timeout=30) as http:
        local_page = http.get("/v1/memories", headers={"Origin": "http://localhost:3000"})
        assert local_page.status_code == 200 and "access-control-allow-origin" not in local_page.headers
        preflight = http.options("/v1/memories", headers={"Origin": "http://localhost:3000",
                                                          "Access-Control-Request-Method": "DELETE"})  # fmt: skip
        assert "access-control-allow-origin" not in preflight.headers, preflight.headers


def test_allowed_hosts_and_cors_origins_let_names_through(configured: ServeProcess) -> None:
    for response in _requests(configured, {"Host": f"memory.test:{configured.port}"}):
        assert response.status_code == 200, (response.request.url, response.text)
    for response in _requests(configured, {"Host": f"localhost:{configured.port}"}):
        assert response.status_code == 200, (response.request.url, response.text)
    for response in _requests(configured, {"Host": f"attacker.example:{configured.port}"}):
        _refused(response, 421, "memory.test")
    page = {"Origin": "http://app.test:3000"}
    with httpx.Client(base_url=configured.url, timeout=30) as http:
        asks = {"Access-Control-Request-Method": "DELETE", "Access-Control-Request-Headers": "authorization"}
        preflight = http.options("/v1/memories", headers={**page, **asks})
        assert preflight.status_code == 200, preflight.text
        assert preflight.headers["access-control-allow-origin"] == "http://app.test:3000"
        listed = http.get("/v1/memories", headers=page)
        assert listed.status_code == 200 and listed.headers["access-control-allow-origin"] == "http://app.test:3000"
        other = http.get("/v1/memories", headers={"Origin": "http://app.test:4000"})
        _refused(other, 403, "server.cors_origins")
