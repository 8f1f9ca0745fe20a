"""A permanent fuzz suite for ``flowmem serve`` (HTTP) and ``flowmem mcp`` (stdio): random JSON per route and
random tool arguments against real server processes.

Bodies are built from each route's own fields (and stray ones) with values that once broke a service: lone
UTF-16 surrogates (written as JSON escapes), NaN and Infinity, huge and negative numbers, empty strings,
nulls, nested lists and objects, ids of other workspaces. Every answer must be a 2xx, or a 4xx with the error
shape (``{"error": {"type", "message", "problems"}}``) — never a 5xx — within PER_EXAMPLE seconds; every tool
call must be answered, as a result or a tool error, never an internal error.

Bounded for CI: derandomized, no example database, ``EXAMPLES`` per test (2 tests: 250 HTTP requests and
150 tool calls per run, about 10 s on two cores). Each test reports what it saw (``-s`` shows it).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowmem.server.models import AddBody, ContextBody, RunBody, SearchBody, UpdateBody
from flowmem.testing.serve_process import ServeProcess
from tests.integration.test_mcp_inputs import StdioServer
from tests.integration.test_serve import CONFIG, KEYS, A, _config

EXAMPLES = {"http": 250, "mcp": 150}
PER_EXAMPLE = 15.0  # seconds: generous for a busy CI machine, far below a hang
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,  # timed by hand (PER_EXAMPLE)
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)

# -- values --------------------------------------------------------------------------------------

LONE = "\ud800"
nasty_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", " ", "wa", "wb", "default", "alice", "s1", "personal_retrieve", "chat_context", "x" * 5000,
                     "last weekend", "下周五", "\x00", "a/b", "../x", "*", "?q=1"]),
    st.builds(lambda a, b: a + LONE + b, st.text(max_size=5), st.text(max_size=5)),
    st.just("\udfff"),
)  # fmt: skip
number = st.one_of(
    st.sampled_from([0, -1, -5, 1, 15, 16, 10**6, 10**20, -(10**20), 2**63, float("nan"), float("inf"),
                     float("-inf"), 1e308, -0.0, 0.5]),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
)  # fmt: skip
leaf = st.one_of(st.none(), st.booleans(), nasty_text, number)
value = st.recursive(
    leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(nasty_text, inner, max_size=3), max_leaves=8
)
MESSAGE_FIELDS = ["role", "content", "name", "message_id", "time_created"]
message = st.dictionaries(st.sampled_from(MESSAGE_FIELDS), st.one_of(nasty_text, value), max_size=5)
INPUT_NAMES = ["query", "user_id", "workspace_id", "messages", "timestamp", "top_k", "session_id", "reply"]


def field_value(name: str) -> st.SearchStrategy[Any]:
    """Values for a body field: the kind it wants most of the time, anything at all sometimes."""
    wanted: dict[str, st.SearchStrategy[Any]] = {
        "messages": st.lists(message, max_size=3),
        "inputs": st.dictionaries(st.sampled_from(INPUT_NAMES) | nasty_text, value, max_size=4),
        "op_params": st.dictionaries(st.sampled_from(["fuse_rerank_op", "nope_op"]) | nasty_text,
                                     st.dictionaries(st.sampled_from(["fuse_time_ratio", "x"]), value, max_size=2),
                                     max_size=2),
        "top_k": number, "token_limit": number, "explain": st.booleans() | value,
        "timestamp": st.sampled_from(["2024-05-04T10:00:00", "2024-13-45", "", "9999-12-31T23:59:59"]) | value,
    }  # fmt: skip
    return (
        st.one_of(wanted.get(name, nasty_text), value) if name in wanted else st.one_of(nasty_text, nasty_text, value)
    )


# Each route with a body that is valid as it stands: the fuzzer spoils some of its fields (or none).
ROUTES: list[tuple[str, str, type[Any], dict[str, Any]]] = [
    ("POST", "/v1/memories", AddBody, {"text": "I keep bees", "user_id": "alice"}),
    ("POST", "/v1/search", SearchBody, {"query": "what do I keep?", "user_id": "alice"}),
    ("POST", "/v1/context", ContextBody, {"message": "hi", "user_id": "alice", "session_id": "s1"}),
    ("PATCH", "/v1/memories/{id}", UpdateBody, {"content": "I keep wasps"}),
    ("POST", "/v1/flows/{flow}/run", RunBody, {"inputs": {"query": "bees?", "user_id": "alice"}}),
]


@st.composite
def request(draw: st.DrawFn) -> tuple[str, str, bytes]:
    method, path, model, valid = draw(st.sampled_from(ROUTES))
    body: dict[str, Any] = {**valid, "workspace_id": "wa"}
    for name in draw(st.lists(st.sampled_from(list(model.model_fields)), max_size=3, unique=True)):
        body[name] = draw(field_value(name))
    if draw(st.integers(0, 9)) == 0:
        body[draw(nasty_text)] = draw(value)  # a stray field
    if draw(st.integers(0, 9)) == 0:
        body.pop(draw(st.sampled_from(sorted(body))))
    flow = draw(st.sampled_from(["personal_retrieve", "personal_retrieve", "chat_context", "personal_summary", "nope"]))
    path = path.format(id=draw(st.sampled_from(["m1", "x" * 300])), flow=flow)
    # ensure_ascii: a lone surrogate goes out as its JSON escape; allow_nan: NaN and Infinity as Python writes them
    return method, path, json.dumps(body, ensure_ascii=True, allow_nan=True).encode()


# -- HTTP ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    tmp = tmp_path_factory.mktemp("fuzz-serve")
    with ServeProcess(["-c", str(_config(tmp, CONFIG))], home=tmp / "home", env=KEYS) as process:
        yield process


def test_fuzz_http_routes(server: ServeProcess) -> None:
    seen: Counter[str] = Counter()
    with httpx.Client(base_url=server.url, timeout=60) as http:

        @settings(FUZZ, max_examples=EXAMPLES["http"])
        @given(call=request())
        def one(call: tuple[str, str, bytes]) -> None:
            method, path, body = call
            start = time.monotonic()
            response = http.request(method, path, content=body, headers={**A, "content-type": "application/json"})
            elapsed = time.monotonic() - start
            seen["requests"] += 1
            seen[f"{response.status_code // 100}xx"] += 1
            shown = f"{method} {path} {body[:300]!r}"
            assert response.status_code < 500, f"{response.status_code}: {shown}\n{response.text[:1000]}"
            if response.status_code >= 400:
                error = response.json()["error"]
                assert error["type"] and error["message"] and error["problems"], (shown, error)
            assert elapsed < PER_EXAMPLE, f"{elapsed:.1f}s: {shown}"

        one()
    print(f"\nHTTP fuzz: {dict(seen)}")
    assert seen["requests"] >= EXAMPLES["http"] // 2 and seen["5xx"] == 0, seen
    assert "Exception in ASGI application" not in server.output()


# -- MCP (stdio) ---------------------------------------------------------------------------------

TOOLS = {
    "add_memory": ["text", "user_id", "workspace_id"],
    "search_memories": ["query", "user_id", "workspace_id", "top_k", "details"],
    "list_memories": ["user_id", "workspace_id", "status", "limit", "offset"],
    "update_memory": ["memory_id", "content", "workspace_id"],
    "delete_memory": ["memory_id", "workspace_id"],
    "memory_history": ["memory_id", "workspace_id"],
    "get_context": ["message", "session_id", "user_id", "workspace_id", "token_limit", "reply"],
}
NUMERIC = {"top_k", "limit", "offset", "token_limit"}


@st.composite
def tool_call(draw: st.DrawFn) -> tuple[str, str]:
    tool = draw(st.sampled_from(sorted(TOOLS)))
    names = draw(st.lists(st.sampled_from(TOOLS[tool]), max_size=len(TOOLS[tool]), unique=True))
    arguments = {n: draw(number | value if n in NUMERIC else nasty_text | value) for n in names}
    if draw(st.integers(0, 9)) == 0:
        arguments[draw(nasty_text)] = draw(value)
    return tool, json.dumps(arguments, ensure_ascii=True, allow_nan=True)


def test_fuzz_mcp_tool_arguments(tmp_path: Path) -> None:
    seen: Counter[str] = Counter()
    server = StdioServer(tmp_path)
    try:
        server.request("initialize", '{"protocolVersion": "2025-06-18", "capabilities": {}, '
                       '"clientInfo": {"name": "fuzz", "version": "1"}}')  # fmt: skip

        @settings(FUZZ, max_examples=EXAMPLES["mcp"])
        @given(call=tool_call())
        def one(call: tuple[str, str]) -> None:
            tool, arguments = call
            start = time.monotonic()
            answer = server.request("tools/call", f'{{"name": "{tool}", "arguments": {arguments}}}')
            elapsed = time.monotonic() - start
            seen["calls"] += 1
            shown = f"{tool} {arguments[:300]}"
            if "error" in answer:  # a JSON-RPC error: the request itself was refused, never an internal one
                seen["rpc errors"] += 1
                assert answer["error"].get("code") != -32603, (shown, answer)
            else:
                result = answer["result"]
                text = result["content"][0]["text"] if result.get("content") else ""
                seen["tool errors" if result.get("isError") else "results"] += 1
                assert "Traceback" not in text and "internal error" not in text.lower(), (shown, text)
            assert elapsed < PER_EXAMPLE, f"{elapsed:.1f}s: {shown}"

        one()
    finally:
        server.close()
    print(f"\nMCP fuzz: {dict(seen)}")
    assert seen["calls"] >= EXAMPLES["mcp"] // 2, seen
