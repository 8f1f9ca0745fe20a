"""The HTTP API's routes: parse, authorise (:mod:`flowmem.server.auth`), call the memory service, render.

No memory logic here: each route is one call of :mod:`flowmem.memories` (``app.memories`` or
:mod:`flowmem.memories.flows`) between the key check and ``to_dict()``. The key is checked for the
request's workspace before the call, so a refused request reads and writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import TypeAdapter, ValidationError

from flowmem.app import App
from flowmem.config.schema import Server
from flowmem.core.errors import InputError, NotFoundError, Problem
from flowmem.core.suggest import one_of, unknown
from flowmem.memories import Memories, SearchResult
from flowmem.memories.flows import run_in_workspace, writes_memories
from flowmem.schema.kinds import DEFAULT_WORKSPACE
from flowmem.schema.memory import Memory, MemoryStatus, MemoryType
from flowmem.server import responses as answers
from flowmem.server.admission import SearchQueue
from flowmem.server.auth import Grant, Keyring
from flowmem.server.errors import ConflictError
from flowmem.server.models import AddBody, AppendBody, ContextBody, ImportBody, RunBody, SearchBody, UpdateBody
from flowmem.server.unreadable import CheckedRoute


@dataclass
class ServerState:
    """What the routes share: the app (its memory service), the keys, the server settings and the searches' turns
    (``server.search_concurrency``: :mod:`flowmem.server.admission`)."""

    app: App
    keyring: Keyring
    settings: Server
    searches: SearchQueue = field(init=False)

    def __post_init__(self) -> None:
        self.searches = SearchQueue(self.settings.search_calls())

    @property
    def memories(self) -> Memories:
        return self.app.memories

    async def search(self, query: str, **kwargs: Any) -> SearchResult:
        """``memories.search(query, **kwargs)`` at the search's turn."""
        async with self.searches.turn():
            return await self.memories.search(query, **kwargs)

    @property
    def secrets(self) -> set[str]:
        return self.keyring.secrets | self.app.resolved.secret_values


def _state(request: Request) -> ServerState:
    state: ServerState = request.app.state.flowmem
    return state


# The dependencies are ``async def`` although they do not await: FastAPI runs a plain ``def`` dependency in
# its thread pool, two hops per request that cost more than the work under load.
async def state_of(request: Request) -> ServerState:
    return _state(request)


# Declared for the OpenAPI page (its "Authorize" button); the check itself is Keyring.grant, on the headers.
_bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer KEY")
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False, description="or X-API-Key: KEY")


async def caller(
    request: Request,
    _bearer_key: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)] = None,
    _header_key: Annotated[str | None, Security(_api_key)] = None,
) -> Grant:
    """The grant of the request's API key (401 without a valid one)."""
    return _state(request).keyring.grant(request.headers)


Caller = Annotated[Grant, Depends(caller)]
State = Annotated[ServerState, Depends(state_of)]
Workspace = Annotated[str, Query(description="the tenant")]
MemoryId = Annotated[str, Path(description="the memory's id")]

router = APIRouter(prefix="/v1", route_class=CheckedRoute, responses=answers.ERRORS)  # CheckedRoute: JSON bodies
# with no lone surrogate, no NaN

_AS_IS = TypeAdapter(dict[str, Any])


def _answer(data: dict[str, Any]) -> Response:
    """``data`` (what the memory service's ``to_dict`` built) as the JSON answer, serialized as FastAPI does a
    ``dict``. Each route's ``response_model`` documents it and is not applied per request (a second pass over
    every memory): tests/unit/server/test_response_models.py checks each route's answer against its model."""
    return Response(_AS_IS.dump_json(data), media_type="application/json")


@router.post("/memories", tags=["memories"], summary="Remember messages or a fact", response_model=answers.AddResponse)
async def add_memories(body: AddBody, grant: Caller, state: State) -> Response:
    grant.check(body.workspace_id, write=True)
    result = await state.memories.add(
        body.messages, text=body.text, user_id=body.user_id, workspace_id=body.workspace_id,
        timestamp=body.timestamp, flow=body.flow,
    )  # fmt: skip
    return _answer(result.to_dict())


@router.get(
    "/memories",
    tags=["memories"],
    summary="List memories, filtered and paged, with the total",
    response_model=answers.MemoryPage,
)
async def list_memories(
    grant: Caller,
    state: State,
    workspace_id: Workspace = DEFAULT_WORKSPACE,
    user_id: Annotated[str | None, Query(description="only this user's memories")] = None,
    memory_type: Annotated[list[MemoryType] | None, Query(description="only these kinds (repeatable)")] = None,
    status: Annotated[MemoryStatus | None, Query(description="valid or expired")] = None,
    limit: Annotated[int, Query(ge=1, le=1000, description="at most this many")] = 20,
    offset: Annotated[int, Query(ge=0, description="skip this many first (next_offset continues)")] = 0,
) -> Response:
    grant.check(workspace_id)
    page = await state.memories.list(
        workspace_id=workspace_id, user_id=user_id, memory_type=memory_type, status=status, limit=limit, offset=offset
    )
    return _answer(page.to_dict())


@router.get("/memories/{memory_id}", tags=["memories"], summary="One memory", response_model=answers.MemoryRecord)
async def get_memory(
    memory_id: MemoryId, grant: Caller, state: State, workspace_id: Workspace = DEFAULT_WORKSPACE
) -> Response:
    grant.check(workspace_id)
    return _answer((await state.memories.get(memory_id, workspace_id=workspace_id)).to_record())


@router.patch(
    "/memories/{memory_id}", tags=["memories"], summary="Replace a memory's text", response_model=answers.MemoryRecord
)
async def update_memory(memory_id: MemoryId, body: UpdateBody, grant: Caller, state: State) -> Response:
    grant.check(body.workspace_id, write=True)
    return _answer((await state.memories.update(memory_id, body.content, workspace_id=body.workspace_id)).to_record())


@router.delete(
    "/memories/{memory_id}",
    tags=["memories"],
    summary="Delete a memory (its history records it)",
    response_model=answers.Deleted,
)
async def delete_memory(
    memory_id: MemoryId,
    grant: Caller,
    state: State,
    workspace_id: Workspace = DEFAULT_WORKSPACE,
    reason: Annotated[str, Query(max_length=200, description="what its history says")] = "deleted",
) -> Response:
    grant.check(workspace_id, write=True)
    deleted = await state.memories.delete(memory_id, workspace_id=workspace_id, reason=reason)
    if not deleted:
        raise NotFoundError(f"no memory with id '{memory_id}' in workspace '{workspace_id}'")
    return _answer({"deleted": deleted})


@router.post(
    "/memories/import",
    tags=["memories"],
    summary="Store ready-made memories as given (an id that exists is replaced)",
    response_model=answers.Imported,
)
async def import_memories(body: ImportBody, grant: Caller, state: State) -> Response:
    grant.check(body.workspace_id, write=True)
    records, problems = [], []
    for i, record in enumerate(body.memories):
        try:
            records.append(Memory.model_validate({"workspace_id": body.workspace_id, **record}))
        except ValidationError as exc:
            problems.append(Problem(f"memories[{i}]", "; ".join(e["msg"] for e in exc.errors()[:3])))
    if problems:
        raise InputError(problems)
    counts = await state.memories.import_(records, workspace_id=body.workspace_id, source="http", reason=body.reason)
    return _answer({"added": sum(counts.added.values()), "updated": sum(counts.updated.values())})


@router.get(
    "/memories/{memory_id}/history",
    tags=["memories"],
    summary="What happened to a memory",
    response_model=answers.History,
)
async def memory_history(
    memory_id: MemoryId,
    grant: Caller,
    state: State,
    workspace_id: Workspace = DEFAULT_WORKSPACE,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> Response:
    grant.check(workspace_id)
    events = await state.memories.history(memory_id, workspace_id=workspace_id, limit=limit)
    return _answer({"memory_id": memory_id, "events": [e.model_dump(mode="json") for e in events]})


@router.post(
    "/search",
    tags=["search"],
    summary="Recall a user's memories for a query, best first",
    response_model=answers.SearchResponse,
)
async def search(body: SearchBody, grant: Caller, state: State) -> Response:
    grant.check(body.workspace_id)
    _known_flow(state, body.flow)  # 404; the read-only policy is the service's (a flow that writes: 400)
    result = await state.search(
        body.query, user_id=body.user_id, workspace_id=body.workspace_id, flow=body.flow, top_k=body.top_k,
        timestamp=body.timestamp,
    )  # fmt: skip
    return _answer(result.to_dict(explain=body.explain))


@router.post(
    "/context",
    tags=["sessions"],
    summary="A chat turn: update the session, get the reply's context",
    response_model=answers.ContextResponse,
)
async def chat_context(body: ContextBody, grant: Caller, state: State) -> Response:
    grant.check(body.workspace_id, write=True)  # it stores the message (and may flush the window to memories)
    result = await state.memories.context(
        body.message, user_id=body.user_id, session_id=body.session_id, workspace_id=body.workspace_id,
        token_limit=body.token_limit, reply=body.reply, timestamp=body.timestamp,
    )  # fmt: skip
    return _answer(result.to_dict(explain=body.explain))


SessionId = Annotated[str, Path(description="the chat session's id")]
SessionUser = Annotated[str, Query(description="whose session")]


@router.get(
    "/sessions/{session_id}",
    tags=["sessions"],
    summary="A chat session's window and summary",
    response_model=answers.ChatSessionRecord,
)
async def get_session(
    session_id: SessionId,
    user_id: SessionUser,
    grant: Caller,
    state: State,
    workspace_id: Workspace = DEFAULT_WORKSPACE,
) -> Response:
    grant.check(workspace_id)
    session = await state.memories.session(session_id, user_id=user_id, workspace_id=workspace_id)
    return _answer(session.model_dump(mode="json"))


@router.delete(
    "/sessions/{session_id}",
    tags=["sessions"],
    summary="Clear a chat session (unflushed messages go)",
    response_model=answers.Cleared,
)
async def clear_session(
    session_id: SessionId,
    user_id: SessionUser,
    grant: Caller,
    state: State,
    workspace_id: Workspace = DEFAULT_WORKSPACE,
) -> Response:
    grant.check(workspace_id, write=True)
    if not await state.memories.clear_session(session_id, user_id=user_id, workspace_id=workspace_id):
        raise NotFoundError(f"no chat session '{session_id}' of user '{user_id}' in workspace '{workspace_id}'")
    return _answer({"cleared": session_id})


@router.post(
    "/sessions/{session_id}/messages",
    tags=["sessions"],
    summary="Append an agent's messages to a chat session as given (the window flushes as a turn does)",
    response_model=answers.ContextResponse,
)
async def append_to_session(session_id: SessionId, body: AppendBody, grant: Caller, state: State) -> Response:
    grant.check(body.workspace_id, write=True)
    result = await state.memories.add_to_session(
        session_id, body.messages, user_id=body.user_id, workspace_id=body.workspace_id, token_limit=body.token_limit
    )
    return _answer(result.to_dict())


@router.delete(
    "/sessions/{session_id}/messages/last",
    tags=["sessions"],
    summary="Take the newest message out of a chat session's window",
    response_model=answers.Popped,
)
async def pop_from_session(
    session_id: SessionId,
    user_id: SessionUser,
    grant: Caller,
    state: State,
    workspace_id: Workspace = DEFAULT_WORKSPACE,
) -> Response:
    grant.check(workspace_id, write=True)
    message = await state.memories.pop_from_session(session_id, user_id=user_id, workspace_id=workspace_id)
    return _answer({"message": None if message is None else message.model_dump(mode="json")})


@router.post("/flows/{name}/run", tags=["flows"], summary="Run a configured flow", response_model=answers.RunResponse)
async def run_flow(
    name: Annotated[str, Path(description="the flow (GET /v1/flows lists them)")],
    body: RunBody,
    grant: Caller,
    state: State,
) -> Response:
    _known_flow(state, name)
    named = body.inputs.get("workspace_id", body.workspace_id)
    if named != body.workspace_id:
        raise ConflictError(
            f"inputs.workspace_id is {named!r} but workspace_id is {body.workspace_id!r}; give the workspace once"
        )
    grant.check(body.workspace_id, write=writes_memories(state.app, name))
    _check_overrides(state.settings, body.op_params)
    response = await run_in_workspace(
        state.app, name, body.inputs, workspace_id=body.workspace_id, op_params=body.op_params
    )
    data = response.to_dict(trace=body.explain)
    data["memories"] = [{**m.to_record(), "scores": dict(m.scores)} for m in response.memories]
    return _answer(data)


@router.get("/flows", tags=["flows"], summary="The configured flows", response_model=answers.Flows)
async def list_flows(grant: Caller, state: State) -> Response:
    flows = state.app.config.flow
    listed = [
        {"name": name, "description": flows[name].description, "writes": writes_memories(state.app, name)}
        for name in sorted(flows)
    ]
    return _answer({"flows": listed, "run_overrides": list(state.settings.run_overrides)})


@router.delete(
    "/users/{user_id}",
    tags=["forget"],
    summary="Forget a user: memories, ledger, history, sessions",
    response_model=answers.Forgotten,
)
async def forget_user(
    user_id: Annotated[str, Path(description="whose memories")],
    grant: Caller,
    state: State,
    workspace_id: Annotated[str, Query(description="the tenant")],
    dry_run: Annotated[bool, Query(description="only count what would be erased")] = False,
) -> Response:
    grant.check(workspace_id, write=not dry_run)
    return _answer((await state.memories.forget(workspace_id=workspace_id, user_id=user_id, dry_run=dry_run)).to_dict())


@router.delete(
    "/workspaces/{workspace_id}", tags=["forget"], summary="Forget a whole workspace", response_model=answers.Forgotten
)
async def forget_workspace(
    workspace_id: Annotated[str, Path(description="the tenant")],
    grant: Caller,
    state: State,
    dry_run: Annotated[bool, Query(description="only count what would be erased")] = False,
) -> Response:
    grant.check(workspace_id, write=not dry_run)
    return _answer((await state.memories.forget(workspace_id=workspace_id, dry_run=dry_run)).to_dict())


def _known_flow(state: ServerState, name: str) -> None:
    if name not in state.app.config.flow:
        raise NotFoundError(unknown("flow", name, state.app.config.flow))


def _check_overrides(settings: Server, op_params: dict[str, dict[str, Any]]) -> None:
    """Only the op params ``server.run_overrides`` lists (``op.param``, or ``op.*``) may change per request."""
    allowed = set(settings.run_overrides)
    refused = [
        f"{op}.{param}"
        for op, params in op_params.items()
        for param in params
        if f"{op}.{param}" not in allowed and f"{op}.*" not in allowed
    ]
    if refused:
        why = f"may not be changed per request on this server ({one_of(allowed)}; server.run_overrides lists them)"
        raise InputError([Problem(f"op_params.{path}", why) for path in refused])
