"""Every route's real answer is what its response model in ``/openapi.json`` says (flowmem.server.responses).

The routes answer the memory service's dicts as they are; the models document them. Here each ``/v1`` route is
called in process (hash embedder, memory store) and its JSON validated against the route's own declared model, with
``extra="forbid"``: a key the server sends that the model lacks, a key the model requires that the server leaves
out, or a wrong type fails. Errors are validated against the ``4XX``/``5XX`` model. A route added without a call
here fails the coverage check.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.routing import Match

from flowmem.app import App
from flowmem.server.app import create_app
from flowmem.server.responses import ErrorResponse
from flowmem.server.routes import router

KEY = "contract-key-0123456789abcdef"
CONFIG = {
    "embedding_model": {"default": {"backend": "hash"}},
    "vector_store": {"default": {"backend": "memory"}},
    "server": {"api_keys": [{"name": "a", "key": KEY, "workspaces": ["*"]}], "run_overrides": ["fuse_rerank_op.*"]},
}
H = {"Authorization": f"Bearer {KEY}"}
W = {"workspace_id": "wa"}
CHAT = [
    {"role": "user", "content": "I moved to Turin in March and I work as a nurse now."},
    {"role": "assistant", "content": "Turin is lovely."},
    {"role": "user", "content": "My sister Ana lives in Porto, she is a teacher."},
]


def _routes(api: FastAPI) -> list[APIRoute]:
    """The API's routes: ``/v1`` (flowmem.server.routes.router) and those of the app itself (health)."""
    return [*(r for r in router.routes if isinstance(r, APIRoute)), *(r for r in api.routes if isinstance(r, APIRoute))]


def _route(api: FastAPI, method: str, path: str) -> APIRoute:
    scope = {"type": "http", "method": method, "path": path, "root_path": ""}
    for route in _routes(api):
        if route.matches(scope)[0] == Match.FULL:
            return route
    raise AssertionError(f"no route {method} {path}")


def _model(route: APIRoute, status: int) -> type[BaseModel]:
    if status == 200:
        assert isinstance(route.response_model, type) and issubclass(route.response_model, BaseModel), route.path
        return route.response_model
    declared = route.responses.get(status) or route.responses.get(f"{status // 100}XX")
    assert declared is not None, f"{route.path} answered {status}, which its OpenAPI responses do not declare"
    model: type[BaseModel] = declared["model"]
    return model


Call = tuple[str, str, int, dict[str, Any]]


@pytest.fixture(scope="module")
def calls() -> list[Call]:
    """(method, route path, status, JSON) of a session that calls every route, its variants and errors."""

    async def main() -> list[Call]:
        app = App(CONFIG)
        seen: list[Call] = []
        try:
            api = create_app(app)
            transport = httpx.ASGITransport(app=api)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765", headers=H) as http:

                async def call(method: str, path: str, **kwargs: Any) -> dict[str, Any]:
                    response = await http.request(method, path, **kwargs)
                    route = _route(api, method, path.split("?")[0])
                    data: dict[str, Any] = response.json()
                    seen.append((method, route.path, response.status_code, data))
                    return data

                added = await call(
                    "POST", "/v1/memories", json={"text": "I moved to Turin in March", "user_id": "alice", **W}
                )
                memory_id = added["actions"][0]["memory_id"]
                await call("POST", "/v1/memories", json={"messages": CHAT, "user_id": "alice", **W})
                await call("GET", "/v1/memories", params={"user_id": "alice", "limit": 1, **W})
                await call("GET", f"/v1/memories/{memory_id}", params=W)
                await call("PATCH", f"/v1/memories/{memory_id}", json={"content": "I moved to Turin in April", **W})
                await call("GET", f"/v1/memories/{memory_id}/history", params=W)
                for explain in (False, True):
                    await call("POST", "/v1/search", json={"query": "where do I live?", "user_id": "alice",
                                                           "explain": explain, **W})  # fmt: skip
                    await call("POST", "/v1/flows/personal_retrieve/run", json={
                        "inputs": {"query": "where?", "user_id": "alice"}, "explain": explain, **W,
                        "op_params": {"fuse_rerank_op": {"fuse_time_ratio": 3}}})  # fmt: skip
                for turn in range(4):  # a small window: the later turns flush the first ones
                    await call("POST", "/v1/context", json={
                        "message": f"Turn {turn}: I like hiking in the Alps with my dog Bruno.", "user_id": "alice",
                        "session_id": "s1", "token_limit": 60, "explain": turn == 3, **W})  # fmt: skip
                await call("POST", "/v1/sessions/s1/messages", json={"messages": CHAT, "user_id": "alice", **W})
                await call("DELETE", "/v1/sessions/s1/messages/last", params={"user_id": "alice", **W})
                await call("DELETE", "/v1/sessions/none/messages/last", params={"user_id": "alice", **W})  # null
                record = (await call("GET", f"/v1/memories/{memory_id}", params=W)) | {"memory_id": "imported-1"}
                await call("POST", "/v1/memories/import", json={"memories": [record], **W})
                await call("GET", "/v1/sessions/s1", params={"user_id": "alice", **W})
                await call("DELETE", "/v1/sessions/s1", params={"user_id": "alice", **W})
                await call("GET", "/v1/flows")
                await call("GET", "/healthz")
                await call("GET", "/readyz")
                await call("DELETE", f"/v1/memories/{memory_id}", params={"reason": "gone", **W})
                await call("DELETE", "/v1/users/alice", params={"dry_run": "true", **W})
                await call("DELETE", "/v1/users/alice", params=W)
                await call("DELETE", "/v1/workspaces/wa")
                # errors: 400, 401, 404, 409, 422
                await call("POST", "/v1/memories", json={"text": " ", "user_id": "alice", **W})
                await call("GET", "/v1/memories", params={"user_id": "alice"}, headers={"Authorization": "Bearer no"})
                await call("GET", f"/v1/memories/{memory_id}", params=W)
                await call("POST", "/v1/flows/personal_retrieve/run", json={"inputs": {"workspace_id": "x"}, **W})
                await call("POST", "/v1/search", json={"query": "q", "user_id": "alice", "top_k": 0})
        finally:
            await app.aclose()
        return seen

    return asyncio.run(main())


def test_every_answer_is_its_documented_model(calls: list[Call]) -> None:
    api = create_app(App(CONFIG))
    for method, path, status, data in calls:
        model = _model(_route(api, method, path), status)
        model.model_validate(data)  # raises, naming the key, when the answer and the model differ
        if status != 200:
            assert model is ErrorResponse
    statuses = {status for _, _, status, _ in calls}
    assert {200, 400, 401, 404, 409, 422} <= statuses
    called = {(method, path) for method, path, _, _ in calls}
    routes = {
        (m, r.path) for r in api.routes if isinstance(r, APIRoute) and r.path.startswith("/v1") for m in r.methods
    }
    assert routes - called == set(), "routes no call here checks"


def test_the_variants_are_called(calls: list[Call]) -> None:
    bodies = [data for _, path, status, data in calls if status == 200]
    assert any("explain" in data and data["explain"]["trace"]["spans"] for data in bodies)  # search, context
    assert any(data.get("flushed") for data in bodies)  # a chat turn that flushed: its AddResponse
    assert any(data.get("trace") for _, path, _, data in calls if path == "/v1/flows/{name}/run")
    assert any(e["old"] and e["new"] for data in bodies for e in data.get("events", []))  # an update's history


def test_a_key_the_model_lacks_is_refused() -> None:
    api = create_app(App(CONFIG))
    model = _model(_route(api, "GET", "/v1/flows"), 200)
    model.model_validate({"flows": [], "run_overrides": []})
    with pytest.raises(ValidationError, match="new_key"):
        model.model_validate({"flows": [], "run_overrides": [], "new_key": 1})
