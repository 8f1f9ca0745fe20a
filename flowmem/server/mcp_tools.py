"""The MCP server: flowmem's memory as tools an LLM calls, over stdio (``flowmem mcp``) or HTTP (``/mcp``).

Built with the official ``mcp`` SDK (2.x, where FastMCP became :class:`MCPServer`). The tools are thin
callers of the memory service, like the HTTP routes. Who may do what is decided by a :class:`Scope`:

- over stdio, the process's ``--workspace``/``--user`` (the person who started it owns it);
- over HTTP, the API key of the request (the same :mod:`flowmem.server.auth` rule as the HTTP API).

A scope with a user confines every tool to that user's memories: the tools taking a memory id pass the
user to the memory service, which treats another user's memory as a missing one (``user_id`` of
:meth:`~flowmem.memories.Memories.get` and the edits), so no tool confirms that another user's id exists.

A failing call answers with the CLI's words (``isError`` results), never a traceback.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, ParamSpec, Protocol, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from flowmem.app import App
from flowmem.core.errors import FlowmemError, InputError, Problem
from flowmem.core.redact import redact_text
from flowmem.schema.kinds import DEFAULT_WORKSPACE
from flowmem.server.admission import SearchQueue
from flowmem.server.auth import Keyring
from flowmem.server.unreadable import MCP_MARK, unreadable

P = ParamSpec("P")
T = TypeVar("T")

INSTRUCTIONS = """\
Long-term memory about the people you talk with. Before answering anything personal (their plans, \
preferences, people, places, past events) call search_memories with the question. When they tell you a \
lasting fact about themselves, call add_memory with that fact in their words (one fact per call). \
Use update_memory or delete_memory when they correct or withdraw something; memory_history shows what \
changed and why. In a conversation, call get_context with each new message of theirs (same session_id \
throughout): it keeps the conversation's short-term memory and returns the context for your answer."""


User = Annotated[str | None, Field(description="whom the memories are about (default: the server's user)")]
Workspace = Annotated[str | None, Field(description="the workspace (default: the one this server or key serves)")]
MemoryId = Annotated[str, Field(description="the memory's id, as search_memories or list_memories gave it")]


class Scope(Protocol):
    """Where a tool call may act: ``(workspace, user)`` for the call, or an error."""

    def __call__(
        self, ctx: Context, workspace_id: str | None, user_id: str | None, *, write: bool
    ) -> tuple[str, str | None]: ...


@dataclass(frozen=True)
class FixedScope:
    """stdio: one workspace and (optionally) one user, fixed when the server starts."""

    workspace_id: str
    user_id: str | None = None

    def __call__(
        self, ctx: Context, workspace_id: str | None, user_id: str | None, *, write: bool
    ) -> tuple[str, str | None]:
        if workspace_id not in (None, "", self.workspace_id):
            raise InputError(Problem("workspace_id", f"this server serves workspace '{self.workspace_id}' only"))
        if user_id not in (None, "") and self.user_id is not None and user_id != self.user_id:
            raise InputError(Problem("user_id", f"this server serves user '{self.user_id}' only"))
        return self.workspace_id, user_id or self.user_id


@dataclass(frozen=True)
class KeyScope:
    """HTTP: the request's API key decides; a key for one workspace makes it the default."""

    keyring: Keyring

    def __call__(
        self, ctx: Context, workspace_id: str | None, user_id: str | None, *, write: bool
    ) -> tuple[str, str | None]:
        request = ctx.request_context.request
        # The headers themselves, not a dict of them: a key header sent twice must reach the check (refused).
        grant = self.keyring.grant(request.headers if request is not None else {})
        if not workspace_id:
            only = [w for w in grant.workspaces if w != "*"]
            workspace_id = only[0] if len(only) == 1 else DEFAULT_WORKSPACE
        grant.check(workspace_id, write=write)
        return workspace_id, user_id


def _refuse_unreadable(arguments: dict[str, Any]) -> None:
    """A tool call's lone surrogates and non-finite numbers, in its arguments or marked on its request by
    :func:`~flowmem.server.unreadable.check_stdin` (stdio): an :class:`InputError` naming each argument."""
    ctx = arguments.get("ctx")
    meta = ctx.request_context.meta if isinstance(ctx, Context) else None
    marked = (meta or {}).get(MCP_MARK)
    problems = [Problem("", str(found)) for found in marked] if isinstance(marked, list) else []
    problems += unreadable({name: value for name, value in arguments.items() if name != "ctx"}, "")
    if problems:
        raise InputError(problems)


def build_mcp(
    app: App, scope: Scope, secrets: set[str] | None = None, searches: SearchQueue | None = None
) -> MCPServer:
    """The MCP server with flowmem's memory tools, acting on ``app.memories`` within ``scope``; each
    ``search_memories`` call at its turn of ``searches`` (``flowmem serve``'s, shared with ``/v1/search``)."""
    # The SDK sets the root logger to this level (logging.basicConfig with a rich handler): at its default, INFO,
    # every library's per-request line is rendered, e.g. the Elasticsearch client's for each round trip (a third
    # of flowmem serve's event loop under bench_serve on Elasticsearch). Warnings and errors still show.
    server: MCPServer = MCPServer("flowmem", instructions=INSTRUCTIONS, log_level="WARNING")
    memories = app.memories
    hidden = set(secrets or ()) | app.resolved.secret_values

    def answers(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
        @functools.wraps(fn)
        async def call(*args: P.args, **kwargs: P.kwargs) -> T:
            try:
                _refuse_unreadable(kwargs)
                return await fn(*args, **kwargs)
            except FlowmemError as exc:
                raise ToolError(redact_text(str(exc), hidden)) from None

        return call

    def who(ctx: Context, workspace_id: str | None, user_id: str | None, *, write: bool) -> tuple[str, str]:
        workspace, user = scope(ctx, workspace_id, user_id, write=write)
        if not user:
            raise InputError(Problem("user_id", "is needed: whose memories (e.g. the person you are talking with)"))
        return workspace, user

    @server.tool()
    @answers
    async def add_memory(
        text: Annotated[str, Field(description="one lasting fact in the person's words, e.g. 'I moved to Turin'")],
        ctx: Context,
        user_id: User = None,
        workspace_id: Workspace = None,
    ) -> dict[str, Any]:
        """Remember one fact about a person. It is stored as said, timed, and checked against what is already
        remembered: a repeat is skipped, a near-duplicate updates the old memory, a newer single-valued fact
        (a new address, a new job) expires the old one. Returns each action with the memory id."""
        workspace, user = who(ctx, workspace_id, user_id, write=True)
        return (await memories.add(text=text, user_id=user, workspace_id=workspace)).to_dict()

    @server.tool()
    @answers
    async def search_memories(
        query: Annotated[str, Field(description="the question, in natural words ('where does she live?')")],
        ctx: Context,
        user_id: User = None,
        workspace_id: Workspace = None,
        top_k: Annotated[int | None, Field(ge=1, le=100, description="how many memories at most")] = None,
        details: Annotated[
            bool, Field(description="every stored field and score factor of each memory, and the answer text")
        ] = False,
    ) -> dict[str, Any]:
        """Recall what is remembered about a person for a question, best first. Time words ('last weekend',
        'in March') favour memories of that time. Returns `memories`, each with its `id`, `content`, `type`,
        `time` (when it happens, else when it was said) and `score`; `details` adds everything else."""
        workspace, user = who(ctx, workspace_id, user_id, write=False)
        async with searches.turn() if searches is not None else contextlib.nullcontext():
            result = await memories.search(query, user_id=user, workspace_id=workspace, top_k=top_k)
        # Five memories in full were ~2,600 tokens of an agent's context (time parts, keys, score factors).
        return result.to_dict() if details else result.to_brief()

    @server.tool()
    @answers
    async def list_memories(
        ctx: Context,
        user_id: User = None,
        workspace_id: Workspace = None,
        status: Annotated[Literal["valid", "expired"] | None, Field(description="only valid or expired")] = None,
        limit: Annotated[int, Field(ge=1, le=200, description="at most this many")] = 20,
        offset: Annotated[int, Field(ge=0, description="skip this many (next_offset continues)")] = 0,
    ) -> dict[str, Any]:
        """List a person's memories, oldest first, with the total: to review everything rather than search."""
        workspace, user = who(ctx, workspace_id, user_id, write=False)
        page = await memories.list(workspace_id=workspace, user_id=user, status=status, limit=limit, offset=offset)
        return page.to_dict()

    @server.tool()
    @answers
    async def update_memory(
        memory_id: MemoryId,
        content: Annotated[str, Field(description="the corrected fact, replacing the old text")],
        ctx: Context,
        workspace_id: Workspace = None,
    ) -> dict[str, Any]:
        """Correct a memory's text (when the person says it is wrong or changed). The change is kept in
        its history."""
        workspace, user = scope(ctx, workspace_id, None, write=True)
        return (await memories.update(memory_id, content, workspace_id=workspace, user_id=user)).to_record()

    @server.tool()
    @answers
    async def delete_memory(memory_id: MemoryId, ctx: Context, workspace_id: Workspace = None) -> dict[str, Any]:
        """Delete a memory (when the person withdraws it or asks you to forget it). Its history records
        the deletion."""
        workspace, user = scope(ctx, workspace_id, None, write=True)
        deleted = await memories.delete(memory_id, workspace_id=workspace, user_id=user)
        if not deleted:
            raise InputError(Problem("memory_id", f"no memory with id '{memory_id}' in workspace '{workspace}'"))
        return {"deleted": deleted}

    @server.tool()
    @answers
    async def memory_history(memory_id: MemoryId, ctx: Context, workspace_id: Workspace = None) -> dict[str, Any]:
        """What happened to a memory, oldest first: added, updated (old and new text), expired, deleted, and why."""
        workspace, user = scope(ctx, workspace_id, None, write=False)
        events = await memories.history(memory_id, workspace_id=workspace, user_id=user)
        return {"memory_id": memory_id, "events": [e.model_dump(mode="json") for e in events]}

    @server.tool()
    @answers
    async def get_context(
        message: Annotated[str, Field(description="the person's new chat message, exactly as they wrote it")],
        session_id: Annotated[str, Field(description="this conversation's id; use the same one for every turn")],
        ctx: Context,
        user_id: User = None,
        workspace_id: Workspace = None,
        token_limit: Annotated[
            int | None, Field(le=1_000_000, description="token budget of the context (16 or more)")
        ] = None,  # its least value is the flow's, checked by the memory service
        reply: Annotated[
            str | None, Field(description="your answer to their previous message, so the session keeps both sides")
        ] = None,
    ) -> dict[str, Any]:
        """Call once per turn of a conversation, with the person's new message, before you answer it. Keeps the
        conversation's recent messages (short-term memory, kept across restarts) within a token budget; when it
        is full the oldest are turned into long-term memories and summarised. Returns `messages` (the context
        for your answer, ready to send to a chat model, when assembled), `chat_history` (the recent messages),
        `summary` (what earlier messages said) and `memories` (what is remembered about the person that is
        relevant now)."""
        workspace, user = who(ctx, workspace_id, user_id, write=True)
        result = await memories.context(
            message, user_id=user, session_id=session_id, workspace_id=workspace, token_limit=token_limit, reply=reply
        )
        return result.to_dict()

    return server
