"""Chat turns with short-term memory: :meth:`Memories.context`, and reading or clearing a session.

A turn runs the ``chat_context`` flow: ``short_term_memory_op`` stores the new message in the
session's window and, when the window is full, says which oldest messages to flush
(``session_flush``); the rest of the flow gathers the context for the reply. The flush happens
here, after the flow, through the write flow (:meth:`Memories.add`: facts extracted, de-duplicated
and time-stamped as for any add); only once that write is acknowledged are the messages trimmed
from the stored window and the new summary stored. A write that fails leaves them in the window:
the next turn flushes them again, and the message ledger skips those already memorized.

The session itself is written only by the store's session writes
(:class:`~flowmem.vector_store.sessions.SessionStore`: append, trim, pop, delete — one rule of versions,
fences and retries); this module says when, and orders a session's turns, pops and clears in this
process (:func:`_lock`).
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from annotated_types import Ge
from pydantic_core import to_jsonable_python

from flowmem.core.errors import InputError, NotFoundError, Problem
from flowmem.flow.compile import op_steps
from flowmem.flow.response import Response
from flowmem.keys import CHAT_HISTORY, CONTEXT_MESSAGES, SESSION_FLUSH, SUMMARY
from flowmem.memories.flows import run_in_workspace
from flowmem.memories.results import AddResult, _scored
from flowmem.memories.writing import add_messages, fits
from flowmem.schema.kinds import WRITE_FLOW
from flowmem.schema.memory import Memory, Message
from flowmem.schema.session import ChatSession
from flowmem.scoring.derive import SESSION
from flowmem.vector_store.rules import check_scope

if TYPE_CHECKING:
    from flowmem.memories.service import Memories

# Turns of one session in another process: a write from a stale read is refused and made again on the new state
# (flowmem.vector_store.sessions.WRITE_ATTEMPTS). In this process, a session's turns, pops and clears wait for
# each other (_LOCKS): a turn sees the one before it whole, its flush too, and a clear takes what a turn stored.
_LOCKS: weakref.WeakValueDictionary[tuple[int, str, str, str], asyncio.Lock] = weakref.WeakValueDictionary()


@dataclass
class ContextResult:
    """What a chat turn gives the caller: the context for the reply, and what happened to the session.

    Attributes:
        messages: ``context_messages``: ``{"role", "content"}`` dicts ready for an OpenAI-style chat call
            (empty when the flow assembles none).
        chat_history: The session's window after this turn, oldest first (the new message last).
        summary: The rolling summary of what left the window.
        memories: The long-term memories retrieved for the message, best first.
        flushed: What the flush wrote through the write flow (``None`` when nothing left the window).
        flushed_messages: How many messages left the window in this turn.
        warnings: Degradations of the turn's flow and of the flush.
        response: The flow's whole response (trace) for ``--explain``.
    """

    messages: list[dict[str, str]]
    chat_history: list[Message]
    summary: str
    memories: list[Memory]
    flushed: AddResult | None
    flushed_messages: int
    warnings: list[str]
    response: Response

    def to_dict(self, *, explain: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "messages": to_jsonable_python(self.messages),
            "chat_history": [m.model_dump(mode="json") for m in self.chat_history],
            "summary": self.summary,
            "memories": [_scored(m) for m in self.memories],
            "flushed_messages": self.flushed_messages,
            "flushed": None if self.flushed is None else self.flushed.to_dict(),
            "warnings": list(self.warnings),
        }
        if explain:
            data["explain"] = self.response.to_dict(trace=True)
        return data


async def context(
    core: Memories,
    message: str,
    *,
    user_id: str,
    workspace_id: str,
    session_id: str,
    token_limit: int | None,
    reply: str | None,
    timestamp: datetime | None,
    flow: str,
) -> ContextResult:
    check_scope(workspace_id, user_id=user_id, session_id=session_id)
    if not isinstance(message, str) or not message.strip():
        raise InputError(Problem("message", "is empty; give the user's new chat message"))
    fits(core, message, "message")
    if reply is not None:
        fits(core, reply, "reply")
    inputs: dict[str, Any] = {"query": message, "user_id": user_id, "session_id": session_id}
    if reply:
        inputs["reply"] = reply
    if timestamp is not None:
        inputs["timestamp"] = timestamp
    op_params = _budget(core, flow, token_limit)
    async with _lock(core, workspace_id, user_id, session_id):  # a turn sees the one before it whole, its flush too
        return await _turn(core, flow, inputs, op_params, workspace_id, user_id, session_id)


async def append(
    core: Memories,
    messages: list[Message],
    *,
    user_id: str,
    workspace_id: str,
    session_id: str,
    token_limit: int | None,
    flow: str,
) -> ContextResult:
    """Messages joined to the session's window as given, flushed as a turn's are; no retrieval (``messages`` and
    ``memories`` of the result are empty unless ``flow`` gathers them)."""
    check_scope(workspace_id, user_id=user_id, session_id=session_id)
    if not messages:
        raise InputError(Problem("messages", "is empty; give the messages to add to the session"))
    for message in messages:
        fits(core, message.content, "messages.content")
    op_params = _budget(core, flow, token_limit)
    inputs: dict[str, Any] = {"user_id": user_id, "session_id": session_id, "session_messages": messages}
    async with _lock(core, workspace_id, user_id, session_id):
        return await _turn(core, flow, inputs, op_params, workspace_id, user_id, session_id)


async def pop(core: Memories, session_id: str, user_id: str, workspace_id: str) -> Message | None:
    """Take the newest message out of the session's window; ``None`` when there is none."""
    check_scope(workspace_id, user_id=user_id, session_id=session_id)
    async with _lock(core, workspace_id, user_id, session_id):
        fence = await core.store.fence(workspace_id, [user_id])
        return await core.store.pop_from_session(workspace_id, user_id, session_id, fence=fence)


def _lock(core: Memories, workspace_id: str, user_id: str, session_id: str) -> asyncio.Lock:
    key = (id(core.store), workspace_id, user_id, session_id)
    return _LOCKS.get(key) or _LOCKS.setdefault(key, asyncio.Lock())


async def _turn(
    core: Memories,
    flow: str,
    inputs: dict[str, Any],
    op_params: dict[str, dict[str, Any]] | None,
    workspace_id: str,
    user_id: str,
    session_id: str,
) -> ContextResult:
    # One fence for the turn and its flush: the flushed messages were read from the session at the turn's start,
    # so a forget of the user since then refuses the flush too (flowmem.vector_store.erasure).
    fences = {core.store_name: await core.store.fence(workspace_id, [user_id])}
    response = await run_in_workspace(
        core.app, flow, {**inputs, "write_fences": fences}, workspace_id=workspace_id, op_params=op_params
    )
    plan = response.output(SESSION_FLUSH)
    written = None
    warnings = list(response.warnings)
    if plan is not None:
        from flowmem.memories.service import BATCH

        flushed = _of_session(plan.messages, session_id)
        written = await add_messages(core, flushed, user_id, workspace_id, WRITE_FLOW, BATCH, None, write_fences=fences)
        warnings += [w for w in written.warnings if w not in warnings]
        # only now: the write was acknowledged
        gone = {m.message_id for m in plan.messages}
        await core.store.trim_session(workspace_id, user_id, session_id, gone, plan.summary)
    return ContextResult(
        messages=response.output(CONTEXT_MESSAGES) or [],
        chat_history=response.output(CHAT_HISTORY) or [],
        summary=response.output(SUMMARY) or "",
        memories=list(response.memories),
        flushed=written,
        flushed_messages=0 if plan is None else len(plan.messages),
        warnings=warnings,
        response=response,
    )


def _of_session(messages: list[Message], session_id: str) -> list[Message]:
    """The flushed messages, each saying its session in ``metadata["session"]`` (unless it names one already):
    the memories written from them keep it (:data:`flowmem.scoring.derive.PROVENANCE`), which is how the web
    inspector's session page finds what a session flushed."""
    return [m if SESSION in m.metadata else m.model_copy(update={"metadata": {**m.metadata, SESSION: session_id}})
            for m in messages]  # fmt: skip


async def show(core: Memories, session_id: str, user_id: str, workspace_id: str) -> ChatSession:
    check_scope(workspace_id, user_id=user_id, session_id=session_id)
    found = await core.store.get_session(workspace_id, user_id, session_id)
    if found is None:
        raise NotFoundError(f"no chat session '{session_id}' of user '{user_id}' in workspace '{workspace_id}'")
    return found


async def clear(core: Memories, session_id: str, user_id: str, workspace_id: str) -> bool:
    check_scope(workspace_id, user_id=user_id, session_id=session_id)
    async with _lock(core, workspace_id, user_id, session_id):  # after a turn under way, its messages too
        return await core.store.delete_session(workspace_id, user_id, session_id)


def _budget(core: Memories, flow: str, token_limit: int | None) -> dict[str, dict[str, Any]] | None:
    """``token_limit`` for every op of ``flow`` that has one (the window's and the assembler's budget alike).

    The least budget is the ops' own bound (``context_assemble_op`` needs 16): the one rule, said here once
    for every caller (the HTTP body and the MCP tool leave it to this check)."""
    if token_limit is None:
        return None
    fields = {
        s.label: s.setting.op_cls.Params.model_fields["token_limit"]
        for s in op_steps(core.app.flow(flow).root)
        if "token_limit" in s.setting.op_cls.Params.model_fields
    }
    if not fields:
        raise InputError(Problem("token_limit", f"flow '{flow}' has no op with a token_limit; leave it out"))
    bounds = [b.ge for f in fields.values() for b in f.metadata if isinstance(b, Ge) and isinstance(b.ge, int)]
    least = max([1, *bounds])
    if isinstance(token_limit, bool) or not isinstance(token_limit, int) or token_limit < least:
        why = f"must be a whole number of tokens, {least} or more (flow '{flow}'), got {token_limit!r}"
        raise InputError(Problem("token_limit", why))
    return {label: {"token_limit": token_limit} for label in fields}
