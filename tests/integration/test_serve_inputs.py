"""What `flowmem serve` answers to values no caller should send: lone UTF-16 surrogates in any JSON string,
null or empty flow inputs, negative counts, a token budget below what the flow can fill; and the server log
line of a 500. Every answer is a 4xx of the documented shape naming the field, nothing is read or written,
and the keep-alive connection stays open. A real server subprocess, as in test_serve.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flowmem.testing.serve_process import ServeProcess
from tests.integration.test_serve import CONFIG, KEYS, A, B, _config, _error

LONE = "\\ud800"  # as a JSON escape: a lone high surrogate, not text


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    tmp = tmp_path_factory.mktemp("serve-inputs")
    with ServeProcess(["-c", str(_config(tmp, CONFIG))], home=tmp / "home", env=KEYS) as process:
        yield process


@pytest.fixture
def http(server: ServeProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def _raw(http: httpx.Client, method: str, path: str, body: dict[str, Any], field: str, key: Any = A) -> httpx.Response:
    """``body`` as JSON with the string at dotted ``field`` holding a lone surrogate (escaped: json.dumps
    cannot write one)."""
    marker = "@@LONE@@"
    holder: Any = body
    *parents, last = field.split(".")
    for part in parents:
        holder = holder[int(part) if isinstance(holder, list) else part]
    holder[last] = f"x{marker}"
    text = json.dumps(body).replace(marker, LONE)
    return http.request(method, path, content=text.encode(), headers={**key, "content-type": "application/json"})


def _count(http: httpx.Client) -> int:
    total: int = http.get("/v1/memories", params={"workspace_id": "wa"}, headers=A).json()["total"]
    return total


CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("POST", "/v1/memories", {"text": "t", "user_id": "u", "workspace_id": "wa"}, "text"),
    ("POST", "/v1/memories", {"text": "t", "user_id": "u", "workspace_id": "wa"}, "user_id"),
    ("POST", "/v1/memories", {"text": "t", "user_id": "u", "workspace_id": "wa"}, "workspace_id"),
    ("POST", "/v1/memories", {"messages": [{"role": "user", "content": "c"}], "user_id": "u", "workspace_id": "wa"},
     "messages.0.content"),
    ("POST", "/v1/search", {"query": "q", "user_id": "u", "workspace_id": "wa"}, "query"),
    ("PATCH", "/v1/memories/m1", {"content": "c", "workspace_id": "wa"}, "content"),
    ("POST", "/v1/context", {"message": "hi", "user_id": "u", "session_id": "s", "workspace_id": "wa"}, "session_id"),
    ("POST", "/v1/context", {"message": "hi", "user_id": "u", "session_id": "s", "workspace_id": "wa"}, "message"),
    ("POST", "/v1/flows/personal_retrieve/run", {"inputs": {"query": "q", "user_id": "u"}, "workspace_id": "wa"},
     "inputs.query"),
    ("POST", "/v1/flows/personal_retrieve/run", {"inputs": {"query": "q", "user_id": "u"}, "workspace_id": "wa"},
     "inputs.user_id"),
]  # fmt: skip


def test_lone_surrogates_answer_400_naming_the_field(http: httpx.Client, server: ServeProcess) -> None:
    before = _count(http)
    for method, path, body, field in CASES:
        response = _raw(http, method, path, json.loads(json.dumps(body)), field)
        error = _error(response, 400, "invalid_input")
        assert [p["where"] for p in error["problems"]] == [f"body.{field}"], (path, error)
        assert "surrogate" in error["message"] and "\\ud800" in error["message"], error
    # a key the caller may not use, spelt with a surrogate: 400 (it was a 500 in place of the 403)
    refused = _raw(http, "POST", "/v1/memories", {"text": "t", "user_id": "u", "workspace_id": "wb"}, "workspace_id",
                   key=B)  # fmt: skip
    _error(refused, 400, "invalid_input")
    # in a key of a flow's inputs, and percent-encoded in a query string (decoded with replacement: no surrogate)
    text = '{"inputs": {"q' + LONE + '": "x", "query": "q", "user_id": "u"}, "workspace_id": "wa"}'
    keyed = http.post("/v1/flows/personal_retrieve/run", content=text.encode(),
                      headers={**A, "content-type": "application/json"})  # fmt: skip
    assert _error(keyed, 400, "invalid_input")["problems"][0]["where"] == "body.inputs.q\\ud800"
    assert http.get("/v1/memories?workspace_id=wa&user_id=%ED%A0%80", headers=A).status_code == 200
    assert _count(http) == before  # nothing written
    assert "Traceback" not in server.output() and "Exception in ASGI application" not in server.output()


def test_lone_surrogate_keeps_the_connection_alive(server: ServeProcess) -> None:
    """One connection (a pool of one): the bad request and the good one after it share it."""
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    with httpx.Client(base_url=server.url, timeout=30, limits=limits) as http:
        ports = []
        for path, body in (("/v1/memories", '{"text": "t", "user_id": "x' + LONE + '", "workspace_id": "wa"}'),
                           ("/v1/search", '{"query": "x", "user_id": "u", "workspace_id": "wa"}')):  # fmt: skip
            response = http.post(path, content=body.encode(), headers={**A, "content-type": "application/json"})
            assert response.status_code in (200, 400), response.text
            assert response.headers.get("connection") != "close"
            stream = response.extensions["network_stream"]
            ports.append(stream.get_extra_info("client_addr"))
        assert ports[0] == ports[1]


def test_wrong_statuses_are_400(http: httpx.Client) -> None:
    run = "/v1/flows/personal_retrieve/run"
    null_query = http.post(run, json={"inputs": {"query": None, "user_id": "u"}, "workspace_id": "wa"}, headers=A)
    assert "'query'" in _error(null_query, 400, "invalid_input")["message"]
    null_user = http.post(run, json={"inputs": {"query": "q", "user_id": None}, "workspace_id": "wa"}, headers=A)
    assert "'user_id'" in _error(null_user, 400, "invalid_input")["message"]
    negative = http.post(run, json={"inputs": {"query": "q", "user_id": "u", "top_k": -5}, "workspace_id": "wa"},
                         headers=A)  # fmt: skip
    assert "top_k" in _error(negative, 400, "invalid_input")["message"]
    chat = {"message": "hi", "user_id": "u", "session_id": "", "workspace_id": "wa"}
    empty_session = http.post("/v1/flows/chat_context/run", json={"inputs": {"query": "hi", "user_id": "u",
                              "session_id": ""}, "workspace_id": "wa"}, headers=A)  # fmt: skip
    assert "session_id" in _error(empty_session, 400, "invalid_input")["message"]
    assert "session_id" in _error(http.post("/v1/context", json=chat, headers=A), 400, "invalid_input")["message"]
    # one bound, one message: the flow's own (context_assemble_op needs 16), said by the memory service
    messages = set()
    for limit in (1, 5, 15, 0, -3):
        low = http.post("/v1/context", json={**chat, "session_id": "s", "token_limit": limit}, headers=A)
        message = _error(low, 400, "invalid_input")["message"]
        assert message.endswith(f"got {limit}"), message
        messages.add(message.rsplit("got ", 1)[0])
    assert len(messages) == 1 and "16" in messages.pop()
    ok = http.post("/v1/context", json={**chat, "session_id": "s", "token_limit": 16}, headers=A)
    assert ok.status_code == 200, ok.text


FAILING_OP = """
from flowmem.flow.op import Op, OpParams, register_op


@register_op
class ExplodeOp(Op):
    class Params(OpParams):
        pass

    reads = ("query",)
    writes = ("answer_text",)

    async def execute(self, ctx):
        raise RuntimeError("exploded near key-a-0123456789abcdef")
"""


def test_a_500_is_logged_without_secrets(tmp_path: Path) -> None:
    plugin = tmp_path / "explode_plugin.py"
    plugin.write_text(FAILING_OP, encoding="utf-8")
    config = _config(tmp_path, CONFIG + "flow:\n  explode: {flow_content: explode_op}\n")
    with ServeProcess(["-c", str(config), "--plugin", str(plugin)], home=tmp_path / "home", env=KEYS) as server:
        response = httpx.post(f"{server.url}/v1/flows/explode/run", json={"inputs": {"query": "q"},
                              "workspace_id": "wa"}, headers=A, timeout=30)  # fmt: skip
        error = _error(response, 500, "op_failed")
        assert "explode_op" in error["message"] and KEYS["FLOWMEM_KEY_A"] not in response.text
        log = server.output()
    lines = [line for line in log.splitlines() if "/v1/flows/explode/run" in line]
    assert lines and "explode_op" in lines[0], log[-2000:]
    assert KEYS["FLOWMEM_KEY_A"] not in log
