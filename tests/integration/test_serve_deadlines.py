"""Every connection of `flowmem serve` has deadlines, and there is a limit to how many it keeps.

Raw sockets against a real server with small configured values: a silent or idle connection is closed,
a client dribbling its headers (slowloris) is cut off, a body that does not arrive in time is answered
408 on every path (``/mcp/`` too), and a connection beyond ``server.max_connections`` is answered 503.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from flowmem.testing.serve_process import ServeProcess

CONFIG = """
embedding_model:
  default: {backend: hash}
server: {header_timeout: 1, idle_timeout: 1, body_timeout: 1, max_connections: 4}
"""
MARGIN = 2.0  # seconds beyond a deadline before the test calls it missed (a loaded 2-core machine)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    tmp = tmp_path_factory.mktemp("deadlines")
    (tmp / "serve.yaml").write_text(CONFIG, encoding="utf-8")
    with ServeProcess(["-c", str(tmp / "serve.yaml")], home=tmp / "home") as process:
        yield process


def _connect(server: ServeProcess) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    return sock


def _read_until_closed(sock: socket.socket, within: float) -> tuple[bytes, float]:
    """What the server sends until it closes the connection, and when (seconds from now); fails after ``within``."""
    start = time.monotonic()
    sock.settimeout(within)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        pytest.fail(f"the server kept the connection open for {within:g} s; received {received[:200]!r}")
    return received, time.monotonic() - start


def test_a_silent_connection_is_closed_after_the_header_timeout(server: ServeProcess) -> None:
    with _connect(server) as sock:
        received, took = _read_until_closed(sock, 1 + MARGIN)
    assert received == b"" and took >= 0.8, (received, took)  # nothing asked: nothing answered


def test_an_idle_keep_alive_connection_is_closed_after_the_idle_timeout(server: ServeProcess) -> None:
    with _connect(server) as sock:
        sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        received, took = _read_until_closed(sock, 1 + MARGIN)
    assert received.startswith(b"HTTP/1.1 200") and b'{"status":"ok"}' in received, received
    assert took >= 0.8, took


def test_a_slowloris_client_is_cut_off_within_the_header_timeout(server: ServeProcess) -> None:
    request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Padding: {'a' * 200}\r\n\r\n".encode()
    start = time.monotonic()
    received = b""
    with _connect(server) as sock:
        sock.settimeout(0.1)
        for i in range(len(request)):
            try:
                sock.sendall(request[i : i + 1])
                received += sock.recv(65536)
                break  # an answer (or the close) before the headers were done
            except TimeoutError:
                pass  # still open: the next byte
            except (BrokenPipeError, ConnectionResetError):
                break
            assert time.monotonic() - start < 1 + MARGIN, "the server still reads the dribbled headers"
    took = time.monotonic() - start
    assert took < 1 + MARGIN and (received == b"" or received.startswith(b"HTTP/1.1 408")), (took, received)
    if received:
        assert b"server.header_timeout" in received, received


def test_headers_over_64_kib_are_answered_431(server: ServeProcess) -> None:
    with _connect(server) as sock:
        sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Flood: ".encode() + b"a" * 80_000)
        received, _ = _read_until_closed(sock, 1 + MARGIN)
    # b"": reset, the flood not all read when the server closed; refused all the same (the deadline would say 408)
    assert received == b"" or received.startswith(b"HTTP/1.1 431"), received[:300]


@pytest.mark.parametrize("path", ["/mcp/", "/v1/memories"])
def test_a_slow_body_is_answered_408_within_the_body_timeout(server: ServeProcess, path: str) -> None:
    body = json.dumps({"text": "I like tea", "user_id": "u"}).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\ncontent-type: application/json\r\n"
            f"accept: application/json, text/event-stream\r\ncontent-length: {len(body)}\r\n\r\n")  # fmt: skip
    with _connect(server) as sock:
        sock.sendall(head.encode() + body[:5])  # ... and the rest never comes
        received, took = _read_until_closed(sock, 1 + MARGIN)
    assert received.startswith(b"HTTP/1.1 408"), received
    assert b"server.body_timeout" in received and took >= 0.8, (received, took)


def test_connections_beyond_the_limit_are_answered_503(server: ServeProcess) -> None:
    sockets = [_connect(server) for _ in range(4)]
    try:
        time.sleep(0.2)  # the server has accepted them
        refused = httpx.get(f"{server.url}/healthz", timeout=10)
        assert refused.status_code == 503, refused.text
        assert "server.max_connections" in refused.json()["error"]["message"]
    finally:
        for sock in sockets:
            sock.close()
    time.sleep(0.2)
    assert httpx.get(f"{server.url}/healthz", timeout=10).status_code == 200
