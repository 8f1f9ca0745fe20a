"""`flowmem serve` as users run it: a real subprocess on a free loopback port, called with httpx.

The store is a temp FLOWMEM_HOME with the `hash` embedder (fast); one test uses the default local e5.
Covers every endpoint, every error shape, the auth matrix, forget, the bind rule, and SIGTERM during writes.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flowmem.testing.serve_process import ServeProcess

KEYS = {"FLOWMEM_KEY_A": "key-a-0123456789abcdef", "FLOWMEM_KEY_B": "key-b-0123456789abcdef",
        "FLOWMEM_KEY_RO": "key-ro-0123456789abcdef"}  # fmt: skip
A, B, RO = ({"Authorization": f"Bearer {KEYS[name]}"} for name in ("FLOWMEM_KEY_A", "FLOWMEM_KEY_B", "FLOWMEM_KEY_RO"))
CONFIG = """
embedding_model:
  default: {backend: hash}
server:
  api_keys:
    - {name: alice-app, key: "${FLOWMEM_KEY_A}", workspaces: [wa]}
    - {name: bob-app, key: "${FLOWMEM_KEY_B}", workspaces: [wb]}
    - {name: reader, key: "${FLOWMEM_KEY_RO}", workspaces: [wa], read_only: true}
  run_overrides: [fuse_rerank_op.fuse_time_ratio]
  max_body_bytes: 65536
"""


def _config(tmp: Path, text: str = CONFIG) -> Path:
    path = tmp / "serve.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    tmp = tmp_path_factory.mktemp("serve")
    with ServeProcess(["-c", str(_config(tmp))], home=tmp / "home", env=KEYS) as process:
        yield process


@pytest.fixture
def http(server: ServeProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def _error(response: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["type"] == kind and error["message"] and error["problems"], error
    assert "Traceback" not in response.text
    return error


def _add(http: httpx.Client, text: str, user: str = "alice", workspace: str = "wa", key: Any = A) -> str:
    response = http.post("/v1/memories", json={"text": text, "user_id": user, "workspace_id": workspace}, headers=key)
    assert response.status_code == 200, response.text
    memory_id: str = response.json()["actions"][0]["memory_id"]
    return memory_id


def test_health_and_docs(http: httpx.Client) -> None:
    assert http.get("/healthz").json() == {"status": "ok"}
    ready = http.get("/readyz").json()
    assert ready["status"] == "ready" and ready["checks"]["vector_store"] == "ok"
    paths = http.get("/openapi.json").json()["paths"]
    assert {"/v1/memories", "/v1/search", "/v1/flows/{name}/run", "/v1/users/{user_id}"} <= set(paths)
    assert http.get("/docs").status_code == 200


def test_memory_lifecycle_add_list_get_update_history_delete(http: httpx.Client) -> None:
    memory_id = _add(http, "I play the cello on Sundays")
    page = http.get("/v1/memories", params={"workspace_id": "wa", "user_id": "alice", "limit": 100}, headers=A).json()
    assert memory_id in [m["memory_id"] for m in page["memories"]] and page["total"] >= 1
    assert http.get(f"/v1/memories/{memory_id}", params={"workspace_id": "wa"}, headers=A).json()["content"] == (
        "I play the cello on Sundays"
    )
    patched = http.patch(f"/v1/memories/{memory_id}", json={"content": "I play the viola", "workspace_id": "wa"},
                         headers=A)  # fmt: skip
    assert patched.status_code == 200 and patched.json()["content"] == "I play the viola"
    events = http.get(f"/v1/memories/{memory_id}/history", params={"workspace_id": "wa"}, headers=A).json()["events"]
    assert [e["event"] for e in events] == ["add", "update"]
    assert http.delete(f"/v1/memories/{memory_id}", params={"workspace_id": "wa"}, headers=A).json() == {
        "deleted": [memory_id]
    }
    error = _error(http.get(f"/v1/memories/{memory_id}", params={"workspace_id": "wa"}, headers=A), 404, "not_found")
    assert error["message"] == f"no memory with id '{memory_id}' in workspace 'wa'"  # the CLI's words
    _error(http.delete(f"/v1/memories/{memory_id}", params={"workspace_id": "wa"}, headers=A), 404, "not_found")


def test_add_messages_and_search_with_scores(http: httpx.Client) -> None:
    messages = [{"role": "user", "name": "carol", "content": "I moved to Lisbon in May", "message_id": "m1",
                 "time_created": "2024-06-01T10:00:00"}]  # fmt: skip
    body = {"messages": messages, "user_id": "carol", "workspace_id": "wa"}
    added = http.post("/v1/memories", json=body, headers=A).json()
    assert added["messages"] == 1 and added["actions"]
    again = http.post("/v1/memories", json=body, headers=A).json()
    assert again["already_memorized"] == 1 and again["actions"] == []
    found = http.post("/v1/search", json={"query": "where did I move to?", "user_id": "carol", "workspace_id": "wa",
                                          "explain": True}, headers=A).json()  # fmt: skip
    assert "Lisbon" in found["memories"][0]["content"] and found["memories"][0]["scores"]
    assert "trace" in found["explain"]


def test_add_says_which_messages_it_left_out_and_refuses_a_wrong_user(http: httpx.Client) -> None:
    def said(message_id: str, name: str, content: str, role: str = "user") -> dict[str, Any]:
        return {"role": role, "name": name, "content": content, "message_id": message_id,
                "time_created": "2024-06-01T10:00:00"}  # fmt: skip

    messages = [said("d1", "dana", "I moved to Lisbon in May"), said("d2", "erin", "I live in Porto"),
                said("d3", "dana", "thanks!"), said("d4", "assistant", "Welcome!", role="assistant")]  # fmt: skip
    added = http.post("/v1/memories", json={"messages": messages, "user_id": "dana", "workspace_id": "wa"}, headers=A)
    assert added.status_code == 200, added.text
    body = added.json()
    # "thanks!" is kept: every user turn is the record (offline_score_threshold 0), so no noise is left out here
    assert body["skipped"] == {"not the user's (name 'erin')": 1, "not the user's (role 'assistant')": 1}
    assert body["skipped_ids"]["not the user's (name 'erin')"] == ["d2"] and body["counts"] == {"add": 2}
    wrong = {"messages": [said("f1", "frank", "I live in Faro")], "user_id": "dana", "workspace_id": "wa"}
    error = _error(http.post("/v1/memories", json=wrong, headers=A), 400, "invalid_input")
    assert "no message of the 1 is from user 'dana'" in error["message"] and "'frank' (1)" in error["message"]


def test_flow_run_with_allowed_overrides_only(http: httpx.Client) -> None:
    _add(http, "My sister Ann lives in Porto", user="dave")
    run = {"inputs": {"query": "where does Ann live", "user_id": "dave"}, "workspace_id": "wa"}
    allowed = {**run, "op_params": {"fuse_rerank_op": {"fuse_time_ratio": 3}}}
    ok = http.post("/v1/flows/personal_retrieve/run", json=allowed, headers=A)
    assert ok.status_code == 200 and "Porto" in ok.json()["memories"][0]["content"]
    other_param = {**run, "op_params": {"fuse_rerank_op": {"fuse_score_threshold": 0}}}
    refused = http.post("/v1/flows/personal_retrieve/run", json=other_param, headers=A)
    assert "fuse_rerank_op.fuse_time_ratio" in _error(refused, 400, "invalid_input")["message"]
    bad = http.post("/v1/flows/personal_retrieve/run",
                    json={**run, "op_params": {"fuse_rerank_op": {"fuse_time_ratio": "lots"}}}, headers=A)  # fmt: skip
    assert "fuse_time_ratio" in _error(bad, 422, "invalid_flow")["message"]
    unknown = _error(http.post("/v1/flows/personal_retreive/run", json=run, headers=A), 404, "not_found")
    assert "did you mean 'personal_retrieve'" in unknown["message"]
    clash = {**run, "inputs": {**run["inputs"], "workspace_id": "wb"}}
    _error(http.post("/v1/flows/personal_retrieve/run", json=clash, headers=A), 409, "conflict")
    flows = http.get("/v1/flows", headers=A).json()
    assert {"name": "personal_summary", "writes": True}.items() <= next(
        f for f in flows["flows"] if f["name"] == "personal_summary"
    ).items()


def test_error_shapes(http: httpx.Client) -> None:
    empty = _error(http.post("/v1/memories", json={"text": " ", "user_id": "alice", "workspace_id": "wa"}, headers=A),
                   400, "invalid_input")  # fmt: skip
    assert empty["message"] == "text: is empty; give the fact to remember"  # what `flowmem add " "` prints
    missing = _error(http.post("/v1/search", json={"query": "x", "workspace_id": "wa"}, headers=A), 422,
                     "invalid_request")  # fmt: skip
    assert missing["problems"][0]["where"] == "body.user_id"
    _error(http.post("/v1/search", content=b"{not json", headers={**A, "content-type": "application/json"}), 422,
           "invalid_request")  # fmt: skip
    extra = _error(http.post("/v1/search", json={"query": "x", "user_id": "u", "workspace_id": "wa", "topk": 3},
                             headers=A), 422, "invalid_request")  # fmt: skip
    assert extra["problems"][0]["where"] == "body.topk"
    long_query = http.post("/v1/search", json={"query": "x" * 5000, "user_id": "u", "workspace_id": "wa"}, headers=A)
    assert "query_max_chars" in _error(long_query, 400, "invalid_input")["message"]
    big = {"text": "y" * 70_000, "user_id": "alice", "workspace_id": "wa"}
    assert "65,536" in _error(http.post("/v1/memories", json=big, headers=A), 413, "too_large")["message"]

    def chunks() -> Iterator[bytes]:
        yield b'{"text": "'
        for _ in range(10):
            yield b"z" * 10_000
        yield b'", "user_id": "alice", "workspace_id": "wa"}'

    _error(http.post("/v1/memories", content=chunks(), headers={**A, "content-type": "application/json"}), 413,
           "too_large")  # fmt: skip
    _error(http.get("/v1/nothing", headers=A), 404, "not_found")
    _error(http.put("/v1/search", headers=A), 405, "method_not_allowed")
    before = http.get("/v1/memories", params={"workspace_id": "wa", "user_id": "alice"}, headers=A).json()["total"]
    assert (
        before == http.get("/v1/memories", params={"workspace_id": "wa", "user_id": "alice"}, headers=A).json()["total"]
    )


def test_auth_matrix_no_key_wrong_key_other_workspace_read_only(http: httpx.Client) -> None:
    secret = _add(http, "My bank PIN hint is the cat's birthday", user="erin", workspace="wa")
    total = http.get("/v1/memories", params={"workspace_id": "wa"}, headers=A).json()["total"]
    requests: list[tuple[str, str, dict[str, Any]]] = [
        ("POST", "/v1/memories", {"json": {"text": "hi there", "user_id": "erin", "workspace_id": "wa"}}),
        ("GET", "/v1/memories", {"params": {"workspace_id": "wa"}}),
        ("GET", f"/v1/memories/{secret}", {"params": {"workspace_id": "wa"}}),
        ("PATCH", f"/v1/memories/{secret}", {"json": {"content": "stolen", "workspace_id": "wa"}}),
        ("DELETE", f"/v1/memories/{secret}", {"params": {"workspace_id": "wa"}}),
        ("GET", f"/v1/memories/{secret}/history", {"params": {"workspace_id": "wa"}}),
        ("POST", "/v1/search", {"json": {"query": "bank PIN", "user_id": "erin", "workspace_id": "wa"}}),
        ("POST", "/v1/flows/personal_retrieve/run",
         {"json": {"inputs": {"query": "PIN", "user_id": "erin"}, "workspace_id": "wa"}}),
        ("DELETE", "/v1/users/erin", {"params": {"workspace_id": "wa"}}),
        ("DELETE", "/v1/workspaces/wa", {}),
    ]  # fmt: skip
    for method, path, kwargs in requests:
        _error(http.request(method, path, **kwargs), 401, "unauthorized")
        _error(http.request(method, path, headers={"Authorization": "Bearer key-a-0123456789abcdeX"}, **kwargs), 401,
               "unauthorized")  # fmt: skip
        other = _error(http.request(method, path, headers=B, **kwargs), 403, "forbidden")
        assert "PIN" not in str(other) and "erin" not in other["message"] and "wb" in other["message"]
    writes = [r for r in requests if r[0] != "GET" and r[1] != "/v1/search" and "run" not in r[1]]
    for method, path, kwargs in writes:
        assert "read-only" in _error(http.request(method, path, headers=RO, **kwargs), 403, "forbidden")["message"]
    assert http.post("/v1/search", json={"query": "bank PIN", "user_id": "erin", "workspace_id": "wa"},
                     headers=RO).status_code == 200  # fmt: skip
    write_flow = {
        "inputs": {"messages": [{"role": "user", "content": "hello"}], "user_id": "erin"},
        "workspace_id": "wa",
    }
    _error(http.post("/v1/flows/personal_summary/run", json=write_flow, headers=RO), 403, "forbidden")
    assert (
        http.get(f"/v1/memories/{secret}", params={"workspace_id": "wa"}, headers=A)
        .json()["content"]
        .startswith("My bank PIN")
    )
    assert http.get("/v1/memories", params={"workspace_id": "wa"}, headers=A).json()["total"] == total
    # The same id asked in the caller's own workspace: not found there, nothing of wa shown.
    _error(http.get(f"/v1/memories/{secret}", params={"workspace_id": "wb"}, headers=B), 404, "not_found")
    assert http.get("/v1/memories", params={"workspace_id": "wa"}, headers={"X-API-Key": KEYS["FLOWMEM_KEY_A"]}
                    ).status_code == 200  # fmt: skip


def test_forget_user_then_workspace(http: httpx.Client) -> None:
    _add(http, "I like green tea", user="frank", workspace="wb", key=B)
    _add(http, "I like black coffee", user="gina", workspace="wb", key=B)
    preview = http.delete("/v1/users/frank", params={"workspace_id": "wb", "dry_run": True}, headers=B).json()
    assert preview["memories"] == 1
    done = http.delete("/v1/users/frank", params={"workspace_id": "wb"}, headers=B).json()
    assert done == {**preview, "memories": 1}
    left = http.get("/v1/memories", params={"workspace_id": "wb"}, headers=B).json()
    assert [m["target"] for m in left["memories"]] == ["gina"]
    assert http.delete("/v1/workspaces/wb", headers=B).json()["memories"] == 1
    assert http.get("/v1/memories", params={"workspace_id": "wb"}, headers=B).json()["total"] == 0


def test_binding_beyond_loopback_without_keys_is_refused(tmp_path: Path) -> None:
    config = _config(tmp_path, "embedding_model:\n  default: {backend: hash}\n")
    done = subprocess.run([sys.executable, "-m", "flowmem", "serve", "-c", str(config), "--host", "0.0.0.0"],
                          capture_output=True, text=True, timeout=60, env={"FLOWMEM_HOME": str(tmp_path)},
                          check=False)  # fmt: skip
    assert done.returncode == 2 and done.stderr.startswith("flowmem: error: --host: 0.0.0.0 is reachable")
    assert "Traceback" not in done.stderr


def test_request_timeout_answers_504(tmp_path: Path) -> None:
    config = _config(tmp_path, "embedding_model:\n  default: {backend: hash}\nserver: {request_timeout: 0.000001}\n")
    with ServeProcess(["-c", str(config)], home=tmp_path / "home") as process:
        response = httpx.post(f"{process.url}/v1/search", json={"query": "x", "user_id": "u"}, timeout=30)
        assert "request_timeout" in _error(response, 504, "timeout")["message"]


def test_sigterm_during_writes_loses_no_acknowledged_add(tmp_path: Path) -> None:
    config = _config(tmp_path, "embedding_model:\n  default: {backend: hash}\n")
    home = tmp_path / "home"
    acknowledged: list[str] = []
    process = ServeProcess(["-c", str(config)], home=home).start()
    stop = threading.Event()

    def writer(n: int) -> None:
        with httpx.Client(base_url=process.url, timeout=30) as client:
            for i in range(10_000):
                if stop.is_set():
                    return
                try:
                    response = client.post("/v1/memories", json={"text": f"fact {n}-{i} about writer {n}",
                                                                 "user_id": f"w{n}"})  # fmt: skip
                except httpx.HTTPError:
                    return  # the server went away: this add was never acknowledged
                if response.status_code == 200:
                    acknowledged.extend(a["memory_id"] for a in response.json()["actions"] if a["action"] == "add")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(3)
    process.terminate()
    # uvicorn drains, closes the app, then re-raises SIGTERM: the exit a service manager expects.
    assert process.wait(60) in (0, -signal.SIGTERM), process.output()[-2000:]
    assert "Application shutdown complete" in process.output()
    stop.set()
    for thread in threads:
        thread.join(30)
    assert len(acknowledged) > 10
    with ServeProcess(["-c", str(config)], home=home) as again:
        found = httpx.get(f"{again.url}/v1/memories", params={"limit": 1000}, timeout=30).json()
        stored = {m["memory_id"] for m in found["memories"]}
        while found["next_offset"] is not None:
            found = httpx.get(f"{again.url}/v1/memories", params={"limit": 1000, "offset": found["next_offset"]},
                              timeout=30).json()  # fmt: skip
            stored |= {m["memory_id"] for m in found["memories"]}
    assert set(acknowledged) <= stored, f"{len(set(acknowledged) - stored)} acknowledged adds are missing"


def test_default_local_embedder(tmp_path: Path) -> None:
    with ServeProcess([], home=tmp_path / "home") as process, httpx.Client(base_url=process.url, timeout=60) as http:
        _add(http, "I am allergic to peanuts", user="hal", workspace="default", key={})
        _add(http, "My daughter plays football", user="hal", workspace="default", key={})
        found = http.post("/v1/search", json={"query": "what food should I avoid?", "user_id": "hal"}).json()
        assert "peanuts" in found["memories"][0]["content"]
