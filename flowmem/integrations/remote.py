"""A Python client of a remote ``flowmem serve``: what the adapters take instead of an :class:`~flowmem.App` when
flowmem runs in another process or on another machine.

```python
from flowmem.integrations.remote import RemoteApp
from flowmem.integrations.langgraph import FlowmemStore

remote = RemoteApp("http://127.0.0.1:8420", api_key=os.environ["FLOWMEM_API_KEY"])
graph = builder.compile(store=FlowmemStore(remote))  # or FlowmemSession("chat-1", remote, user_id="alice"), …
await remote.memories.search("where does alice live?", user_id="alice")
```

:class:`RemoteApp` has the two things an adapter uses of an ``App``: ``memories`` — the memory service's calls
(:class:`RemoteMemories`: the same names, arguments and defaults as :class:`flowmem.memories.Memories`, each one
request of the HTTP API, ``/docs`` on the server) — and ``run_coroutine``, which runs a call on the client's own
event loop for synchronous callers (``remote.memories.sync`` has every call blocking, as ``app.memories.sync``).

Answers are checked against the API's response models (:mod:`flowmem.server.responses`) and come back as flowmem's
own objects: memories as :class:`~flowmem.schema.memory.Memory` (``metadata`` and scores included), sessions as
:class:`~flowmem.schema.session.ChatSession`, messages as :class:`~flowmem.schema.memory.Message`; the answers of
adds and chat turns as their response models (:class:`~flowmem.server.responses.AddResponse`,
:class:`~flowmem.server.responses.ContextResponse`). An error answer raises flowmem's own exception with the
server's message: 400/422 :class:`~flowmem.core.errors.InputError` (or ``ConfigError`` for a flow that cannot run, each
problem kept), 404 ``NotFoundError``, 409 ``WriteConflictError``, 503 and a server that cannot be reached
``BackendUnavailableError``, 401/403 ``AuthError``, anything else :class:`RemoteError` (its ``status`` and
``type``). The API key goes as ``Authorization: Bearer KEY``.

Why here and not a ``flowmem.client`` package: it is the adapters' remote ``app`` (``flowmem.integrations`` is
flowmem where agents live), and the package top level is being reorganised; it needs only ``httpx``.
"""

from __future__ import annotations

import asyncio
import builtins
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from flowmem.core.errors import (
    BackendUnavailableError,
    ConfigError,
    FlowmemError,
    InputError,
    NotFoundError,
    Problem,
    WriteConflictError,
)
from flowmem.core.own_loop import OwnLoop
from flowmem.memories.importing import ImportCounts
from flowmem.memories.results import ForgetResult, MemoryPage
from flowmem.memories.sync import BlockingFacade, blocking
from flowmem.schema.history import HistoryEvent
from flowmem.schema.kinds import DEFAULT_WORKSPACE, SEARCH_FLOW, MemoryStatus, MemoryType
from flowmem.schema.memory import Memory, Message
from flowmem.schema.session import ChatSession
from flowmem.server import responses as answers
from flowmem.server.auth import AuthError

__all__ = ["Recalled", "RemoteApp", "RemoteError", "RemoteMemories", "SyncRemoteMemories"]

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
PAGE = 1000  # memories per request of an export (the API's most)
AT_ONCE = 8  # requests at once of a call made of one request per id (get_many, delete)


class RemoteError(FlowmemError):
    """An error answer of ``flowmem serve`` with no more precise flowmem exception (a failed op, a timeout, …).

    Attributes:
        status: The HTTP status.
        type: The answer's ``error.type`` (``op_failed``, ``timeout``, ``too_large``, …).
    """

    def __init__(self, status: int, type: str, message: str):
        self.status = status
        self.type = type
        super().__init__(message)


@dataclass
class Recalled:
    """The memories a search recalled, best first (``memory.scores`` has every factor), and the prompt-ready text."""

    memories: list[Memory]
    answer: str
    warnings: list[str]


class RemoteApp:
    """A ``flowmem serve`` at ``url``, as the adapters use an ``App``.

    Args:
        url: The server's base URL (``http://127.0.0.1:8420``).
        api_key: The key sent as ``Authorization: Bearer KEY`` (none for a server without ``server.api_keys``).
        timeout: Seconds to wait for each answer (a write flow with an LLM may take a while).
        transport: An ``httpx`` transport instead of the network (e.g. ``httpx.ASGITransport`` of an app).
    """

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ):
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.timeout = timeout
        self.transport = transport
        self.memories = RemoteMemories(self)
        self._own_loop = OwnLoop("await the async call instead")
        self._clients: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}

    def _client(self) -> httpx.AsyncClient:
        """The connection pool of the running event loop (a pool cannot move between loops)."""
        loop = asyncio.get_running_loop()
        for other in [known for known in self._clients if known.is_closed()]:
            del self._clients[other]  # its loop is gone, and its connections with it
        if loop not in self._clients:
            self._clients[loop] = httpx.AsyncClient(
                base_url=self.url, headers=self.headers, timeout=self.timeout, transport=self.transport
            )
        return self._clients[loop]

    async def request(self, method: str, path: str, model: type[M], **kwargs: Any) -> tuple[M, Any]:
        """Send one request; its answer checked against ``model`` (and the JSON as sent), or the error raised."""
        try:
            response = await self._client().request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise BackendUnavailableError(f"flowmem serve at {self.url} cannot be reached: {exc!r}") from exc
        if response.status_code >= 400:
            raise error_of(response)
        data = response.json()
        try:
            return model.model_validate(data), data
        except ValidationError as exc:
            raise RemoteError(response.status_code, "unexpected_answer", f"{method} {path}: the answer is not a "
                              f"{model.__name__} (a server of another flowmem version?): {exc}") from exc  # fmt: skip

    def run_coroutine(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the client's own event loop (for synchronous callers)."""
        return self._own_loop.run(coroutine)

    async def aclose(self) -> None:
        """Close the connection pool of the running event loop."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    def close(self) -> None:
        """Close the client's own event loop and its connections (after synchronous calls)."""
        self._own_loop.close(self.aclose)

    def __enter__(self) -> RemoteApp:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def __aenter__(self) -> RemoteApp:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def error_of(response: httpx.Response) -> FlowmemError:
    """The flowmem exception an error answer stands for, with the server's message (and problems)."""
    try:
        error = answers.ErrorResponse.model_validate(response.json()).error
    except ValueError:
        return RemoteError(response.status_code, "http_error", f"HTTP {response.status_code}: {response.text[:300]}")
    problems = [Problem(p.where, p.message, p.detail) for p in error.problems]
    if error.type in ("invalid_input", "invalid_request"):
        return InputError(problems)
    if error.type == "invalid_flow":
        return ConfigError(problems)
    if error.type == "not_found":
        return NotFoundError(error.message)
    if error.type == "conflict":
        return WriteConflictError(error.message)
    if error.type == "unavailable":
        return BackendUnavailableError(error.message)
    if error.type in ("unauthorized", "forbidden"):
        return AuthError(response.status_code, error.message)
    return RemoteError(response.status_code, error.type, error.message)


def _json(value: dict[str, Any]) -> Any:
    """A body or query as JSON, its ``None`` entries left out (the server's defaults apply)."""
    return to_jsonable_python({key: given for key, given in value.items() if given is not None})


def _messages(messages: Sequence[Message | dict[str, Any]]) -> list[Any]:
    return [m.model_dump(mode="json") if isinstance(m, Message) else to_jsonable_python(m) for m in messages]


async def _each(ids: Sequence[str], call: Callable[[str], Awaitable[T]]) -> builtins.list[T]:
    """``call`` for each id, in order, :data:`AT_ONCE` requests at a time (a server counts its connections)."""
    done: builtins.list[T] = []
    for start in range(0, len(ids), AT_ONCE):
        done += await asyncio.gather(*map(call, ids[start : start + AT_ONCE]))
    return done


class RemoteMemories:
    """The memory service's calls (:class:`flowmem.memories.Memories`) on a remote ``flowmem serve``: the same names,
    arguments and defaults, for what the HTTP API offers; see there for what each does."""

    def __init__(self, app: RemoteApp):
        self.app = app

    @property
    def sync(self) -> SyncRemoteMemories:
        """The same calls, blocking (on the client's own event loop)."""
        return SyncRemoteMemories(self)

    # -- writes ----------------------------------------------------------------------------------
    async def add(
        self,
        messages: Sequence[Message | dict[str, Any]] | None = None,
        *,
        text: str | None = None,
        user_id: str,
        workspace_id: str = DEFAULT_WORKSPACE,
        timestamp: datetime | None = None,
        flow: str | None = None,
    ) -> answers.AddResponse:
        body = {"messages": None if messages is None else _messages(messages), "text": text, "user_id": user_id,
                "workspace_id": workspace_id, "timestamp": timestamp, "flow": flow}  # fmt: skip
        added, _ = await self.app.request("POST", "/v1/memories", answers.AddResponse, json=_json(body))
        return added

    async def update(self, memory_id: str, content: str, *, workspace_id: str = DEFAULT_WORKSPACE) -> Memory:
        body = {"content": content, "workspace_id": workspace_id}
        _, data = await self.app.request("PATCH", f"/v1/memories/{memory_id}", answers.MemoryRecord, json=body)
        return Memory.model_validate(data)

    async def delete(
        self, memory_ids: str | Sequence[str] = (), *, workspace_id: str = DEFAULT_WORKSPACE, reason: str = "deleted"
    ) -> builtins.list[str]:
        """Delete memories by id (one request each); the ids that existed and are now gone."""
        ids = [memory_ids] if isinstance(memory_ids, str) else list(dict.fromkeys(memory_ids))

        async def one(memory_id: str) -> builtins.list[str]:
            params = {"workspace_id": workspace_id, "reason": reason}
            try:
                deleted, _ = await self.app.request("DELETE", f"/v1/memories/{memory_id}", answers.Deleted,
                                                    params=params)  # fmt: skip
            except NotFoundError:
                return []
            return deleted.deleted

        return [gone for found in await _each(ids, one) for gone in found]

    async def import_(
        self,
        memories: Iterable[Memory],
        *,
        workspace_id: str = DEFAULT_WORKSPACE,
        source: str = "<input>",
        reason: str = "imported",
    ) -> ImportCounts:
        """Store ready-made memories as given (an id that exists is replaced); ``source`` is not sent (the server
        names its source ``http``)."""
        records = [m.to_record(with_vector=m.vector is not None) for m in memories]
        body = {"memories": records, "workspace_id": workspace_id, "reason": reason}
        counts, _ = await self.app.request("POST", "/v1/memories/import", answers.Imported, json=body)
        added, updated = Counter({workspace_id: counts.added}), Counter({workspace_id: counts.updated})
        return ImportCounts(added=added, updated=updated)

    async def forget(
        self, *, workspace_id: str | None = None, user_id: str | None = None, dry_run: bool = False
    ) -> ForgetResult:
        params: dict[str, Any] = {"dry_run": dry_run}
        if user_id is None:
            if workspace_id is None:
                raise InputError(Problem("user_id", "is needed to forget one user (or name workspace_id to erase "
                                         "a whole workspace)"))  # fmt: skip
            path = f"/v1/workspaces/{workspace_id}"
        else:
            path, params["workspace_id"] = f"/v1/users/{user_id}", workspace_id or DEFAULT_WORKSPACE
        forgotten, _ = await self.app.request("DELETE", path, answers.Forgotten, params=params)
        return ForgetResult(**forgotten.model_dump())

    # -- reads -----------------------------------------------------------------------------------
    async def search(
        self,
        query: str,
        *,
        user_id: str,
        workspace_id: str = DEFAULT_WORKSPACE,
        flow: str = SEARCH_FLOW,
        top_k: int | None = None,
        timestamp: datetime | None = None,
    ) -> Recalled:
        body = {"query": query, "user_id": user_id, "workspace_id": workspace_id, "flow": flow, "top_k": top_k,
                "timestamp": timestamp}  # fmt: skip
        found, data = await self.app.request("POST", "/v1/search", answers.SearchResponse, json=_json(body))
        return Recalled([Memory.model_validate(m) for m in data["memories"]], found.answer, found.warnings)

    async def get(self, memory_id: str, *, workspace_id: str = DEFAULT_WORKSPACE) -> Memory:
        params = {"workspace_id": workspace_id}
        _, data = await self.app.request("GET", f"/v1/memories/{memory_id}", answers.MemoryRecord, params=params)
        return Memory.model_validate(data)

    async def get_many(
        self, memory_ids: Sequence[str], *, workspace_id: str = DEFAULT_WORKSPACE
    ) -> builtins.list[Memory]:
        """The memories with these ids, in the order asked (one request each); ids not held are left out."""

        async def one(memory_id: str) -> Memory | None:
            try:
                return await self.get(memory_id, workspace_id=workspace_id)
            except NotFoundError:
                return None

        return [m for m in await _each(memory_ids, one) if m is not None]

    async def list(
        self,
        *,
        workspace_id: str = DEFAULT_WORKSPACE,
        user_id: str | None = None,
        memory_type: MemoryType | Sequence[MemoryType] | None = None,
        status: MemoryStatus | None = None,
        limit: int | None = 20,
        offset: int = 0,
    ) -> MemoryPage:
        """A page of the workspace's memories, oldest first; ``limit=None`` reads every page from ``offset`` on."""
        types = [memory_type] if isinstance(memory_type, str) else memory_type
        params = _json({"workspace_id": workspace_id, "user_id": user_id, "memory_type": types, "status": status})
        memories: builtins.list[Memory] = []
        while True:
            size = PAGE if limit is None else min(limit - len(memories), PAGE)
            at = {"limit": size, "offset": offset + len(memories)}
            page, data = await self.app.request("GET", "/v1/memories", answers.MemoryPage, params={**params, **at})
            memories += [Memory.model_validate(m) for m in data["memories"]]
            if page.next_offset is None or (limit is not None and len(memories) >= limit):
                return MemoryPage(memories=memories, total=page.total, offset=offset, limit=limit or page.total)

    async def export(
        self, *, workspace_id: str = DEFAULT_WORKSPACE, user_id: str | None = None, with_vectors: bool = False
    ) -> AsyncIterator[Memory]:
        """Every memory of the workspace (of ``user_id`` only, if given), oldest first, a page at a time; without
        vectors (the API does not send them)."""
        offset: int | None = 0
        params = _json({"workspace_id": workspace_id, "user_id": user_id, "limit": PAGE})
        while offset is not None:
            page, data = await self.app.request("GET", "/v1/memories", answers.MemoryPage,
                                                params={**params, "offset": offset})  # fmt: skip
            for record in data["memories"]:
                yield Memory.model_validate(record)
            offset = page.next_offset

    async def history(
        self, memory_id: str, *, workspace_id: str = DEFAULT_WORKSPACE, limit: int = 1000
    ) -> builtins.list[HistoryEvent]:
        params = {"workspace_id": workspace_id, "limit": limit}
        _, data = await self.app.request("GET", f"/v1/memories/{memory_id}/history", answers.History, params=params)
        return [HistoryEvent.model_validate(e) for e in data["events"]]

    # -- chat sessions ---------------------------------------------------------------------------
    async def context(
        self,
        message: str,
        *,
        user_id: str,
        session_id: str,
        workspace_id: str = DEFAULT_WORKSPACE,
        token_limit: int | None = None,
        reply: str | None = None,
        timestamp: datetime | None = None,
    ) -> answers.ContextResponse:
        body = {"message": message, "user_id": user_id, "session_id": session_id, "workspace_id": workspace_id,
                "token_limit": token_limit, "reply": reply, "timestamp": timestamp}  # fmt: skip
        turn, _ = await self.app.request("POST", "/v1/context", answers.ContextResponse, json=_json(body))
        return turn

    async def add_to_session(
        self,
        session_id: str,
        messages: Sequence[Message | dict[str, Any]],
        *,
        user_id: str,
        workspace_id: str = DEFAULT_WORKSPACE,
        token_limit: int | None = None,
    ) -> answers.ContextResponse:
        body = {"messages": _messages(messages), "user_id": user_id, "workspace_id": workspace_id,
                "token_limit": token_limit}  # fmt: skip
        path = f"/v1/sessions/{session_id}/messages"
        appended, _ = await self.app.request("POST", path, answers.ContextResponse, json=_json(body))
        return appended

    async def pop_from_session(
        self, session_id: str, *, user_id: str, workspace_id: str = DEFAULT_WORKSPACE
    ) -> Message | None:
        params = {"user_id": user_id, "workspace_id": workspace_id}
        path = f"/v1/sessions/{session_id}/messages/last"
        _, data = await self.app.request("DELETE", path, answers.Popped, params=params)
        return None if data["message"] is None else Message.model_validate(data["message"])

    async def session(self, session_id: str, *, user_id: str, workspace_id: str = DEFAULT_WORKSPACE) -> ChatSession:
        params = {"user_id": user_id, "workspace_id": workspace_id}
        _, data = await self.app.request("GET", f"/v1/sessions/{session_id}", answers.ChatSessionRecord, params=params)
        return ChatSession.model_validate(data)

    async def clear_session(self, session_id: str, *, user_id: str, workspace_id: str = DEFAULT_WORKSPACE) -> bool:
        params = {"user_id": user_id, "workspace_id": workspace_id}
        try:
            await self.app.request("DELETE", f"/v1/sessions/{session_id}", answers.Cleared, params=params)
        except NotFoundError:
            return False
        return True


class SyncRemoteMemories(BlockingFacade):
    """The calls of :class:`RemoteMemories`, blocking (on the client's own event loop)."""

    add = blocking(RemoteMemories.add)
    update = blocking(RemoteMemories.update)
    delete = blocking(RemoteMemories.delete)
    import_ = blocking(RemoteMemories.import_)
    forget = blocking(RemoteMemories.forget)
    search = blocking(RemoteMemories.search)
    get = blocking(RemoteMemories.get)
    get_many = blocking(RemoteMemories.get_many)
    list = blocking(RemoteMemories.list)
    history = blocking(RemoteMemories.history)
    context = blocking(RemoteMemories.context)
    add_to_session = blocking(RemoteMemories.add_to_session)
    pop_from_session = blocking(RemoteMemories.pop_from_session)
    session = blocking(RemoteMemories.session)
    clear_session = blocking(RemoteMemories.clear_session)
