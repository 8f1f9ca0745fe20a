"""The JSON the HTTP API answers, as pydantic models: ``/openapi.json`` describes every ``/v1`` response with them.

The routes answer what the memory service's ``to_dict()`` / ``to_record()`` build, as they are (no second pass
through these models per request); ``tests/unit/server/test_response_models.py`` validates every route's real
answer against its model here (``extra="forbid"``, so a key added on one side and not the other fails), and the
TypeScript client (``clients/typescript``) is generated from the schema these models make.

The records of stored things (a memory, a message, a history event, a chat session) are derived from the schema's
own models (:func:`record_of`): their fields are stated once, in :mod:`flowmem.schema`.
"""

from __future__ import annotations

import copy
from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic_core import PydanticUndefined

from flowmem.schema.actions import ActionKind
from flowmem.schema.history import HistoryEvent
from flowmem.schema.kinds import MemoryStatus
from flowmem.schema.memory import RETRIEVAL_FIELDS, Memory, Message
from flowmem.schema.session import ChatSession
from flowmem.server.errors import ErrorType


class Answer(BaseModel):
    """A response body: every key it has is declared (a key the server sends and no model declares is a bug)."""

    model_config = ConfigDict(extra="forbid")


def record_of(
    model: type[BaseModel], name: str, *, leave_out: Collection[str] = (), retype: dict[str, Any] | None = None
) -> type[Answer]:
    """``model`` as ``model_dump(mode="json")`` writes it: each field (but ``leave_out``) required, since a dump
    has every key; ``retype`` gives a field a more precise type than the stored model's (e.g. a dict that is a
    memory record)."""
    fields: dict[str, Any] = {}
    for field_name, info in model.model_fields.items():
        if field_name in leave_out or info.exclude:
            continue
        if retype and field_name in retype:
            fields[field_name] = (retype[field_name], Field(description=info.description))
        else:  # the same type and constraints, no default
            required = copy.copy(info)
            required.default, required.default_factory = PydanticUndefined, None
            fields[field_name] = (info.annotation, required)
    return create_model(name, __base__=Answer, __doc__=model.__doc__, **fields)


MemoryRecord = record_of(Memory, "MemoryRecord", leave_out=RETRIEVAL_FIELDS)
MessageRecord = record_of(Message, "MessageRecord")
# ``old``/``new`` stay the stored dicts (the schema's own type): an event keeps the record as the flowmem version that
# made the change wrote it, so an old event lacks the fields added since (e.g. ``expanded_key``).
HistoryEventRecord = record_of(HistoryEvent, "HistoryEventRecord")
ChatSessionRecord = record_of(
    ChatSession,
    "ChatSessionRecord",
    retype={"messages": list[MessageRecord]},  # type: ignore[valid-type]
)

_SCORES = "every score factor by name (recall, rank, type and time factors, final)"


class ScoredMemory(MemoryRecord):  # type: ignore[misc,valid-type]  # a class made by record_of
    """A memory a retrieval returned, with its score factors."""

    scores: dict[str, float] = Field(description=_SCORES)


class ExplainedMemory(ScoredMemory):
    """A memory in a flow's own response (``explain``): the op that set each score, and short reasons."""

    score_sources: dict[str, str] = Field(description="the op that set each score")
    explain: dict[str, str] = Field(description="short reasons, by score factor")


class Degradation(Answer):
    """An op that did less than its best, and what it did instead (counted per op and kind)."""

    op: str
    kind: str = Field(description="'LLM call failed', 'run timed out', 'run failed' or 'warning'")
    count: int
    reason: str = Field(description="why (the first one)")
    fallback: str = Field(description="what the op did instead ('' when the reason says it)")


class ActionOld(Answer):
    """The memory before an update or an expiry."""

    content: str
    status: MemoryStatus


class Action(Answer):
    """One decision of the write path and the memory it concerns."""

    action: ActionKind
    memory_id: str
    content: str
    status: MemoryStatus
    reason: str
    old: ActionOld | None = Field(description="the memory before (updates and expiries)")


class AddResponse(Answer):
    """What an add did: every action, and the messages left out counted by reason."""

    actions: list[Action]
    counts: dict[str, int] = Field(description="actions by kind (add, update, expire, skip)")
    messages: int = Field(description="messages sent through the write flow")
    already_memorized: int = Field(description="messages skipped: memorized for this user before")
    skipped: dict[str, int] = Field(description="messages left out, by reason (most first)")
    skipped_ids: dict[str, list[str]] = Field(description="the first message ids of each reason")
    warnings: list[str]
    degradations: list[Degradation]


class MemoryPage(Answer):
    """One page of a listing, oldest first, and how many memories match."""

    memories: list[MemoryRecord]  # type: ignore[valid-type]
    total: int
    offset: int
    limit: int
    next_offset: int | None = Field(description="the offset of the next page (null after the last)")


class Deleted(Answer):
    deleted: list[str] = Field(description="the ids deleted")


class History(Answer):
    """What happened to a memory, oldest first."""

    memory_id: str
    events: list[HistoryEventRecord]  # type: ignore[valid-type]


class Usage(Answer):
    """LLM calls and tokens."""

    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class Span(Answer):
    """One op's run in a flow: timing, status, and what it noted."""

    op: str
    position: int = Field(description="1-based, in the order of the expanded flow expression")
    start_ms: float
    duration_ms: float
    status: str = Field(description="ok, degraded, failed, timeout or cancelled")
    in_flow: str | None = Field(None, description="the included flow the op was written in")
    warnings: list[str] | None = None
    degradations: list[Degradation] | None = None
    notes: dict[str, Any] | None = Field(None, description="what the op noted (its own keys)")
    usage: Usage | None = None


class Trace(Answer):
    """The record of one flow run."""

    flow: str
    flow_id: str
    started_at: str
    duration_ms: float
    usage: Usage
    spans: list[Span]


class _FlowAnswer(Answer):
    flow: str
    flow_id: str = Field(description="the run's id (in every log line of the run)")
    answer: str = Field(description="text for people or a prompt ('' if no op wrote one)")
    outputs: dict[str, Any] = Field(description="the flow's declared extra outputs")
    warnings: list[str]
    usage: Usage
    trace: Trace | None = Field(None, description="per-op timing and status (with explain)")


class FlowExplain(_FlowAnswer):
    """The retrieval flow's whole response (``explain: true``)."""

    memories: list[ExplainedMemory]


class RunResponse(_FlowAnswer):
    """A flow run's response."""

    memories: list[ScoredMemory]


class SearchResponse(Answer):
    """The memories recalled for a query, best first, with the prompt-ready answer text."""

    memories: list[ScoredMemory]
    answer: str = Field(description="the memories as lines with their times, ready for a prompt")
    warnings: list[str]
    explain: FlowExplain | None = Field(None, description="with explain: the flow's trace and every score")


class ChatMessage(Answer):
    """A message for an OpenAI-style chat call."""

    role: str
    content: str


class ContextResponse(Answer):
    """A chat turn: the context for the reply, and what happened to the session."""

    messages: list[ChatMessage] = Field(description="the prompt's messages, for an OpenAI-style chat call")
    chat_history: list[MessageRecord] = Field(description="the session's window after this turn, oldest first")  # type: ignore[valid-type]
    summary: str = Field(description="the rolling summary of what left the window")
    memories: list[ScoredMemory]
    flushed_messages: int = Field(description="messages that left the window in this turn")
    flushed: AddResponse | None = Field(description="what the flush wrote (null: nothing left the window)")
    warnings: list[str]
    explain: FlowExplain | None = Field(None, description="with explain: what was kept, summarised and cut")


class Cleared(Answer):
    cleared: str = Field(description="the session cleared")


class Popped(Answer):
    message: MessageRecord | None = Field(description="the newest message, taken out (null: the window was empty)")  # type: ignore[valid-type]


class Imported(Answer):
    """What an import wrote."""

    added: int = Field(description="memories with new ids")
    updated: int = Field(description="memories replaced (their ids existed)")


class FlowInfo(Answer):
    name: str
    description: str
    writes: bool = Field(description="whether it writes memories (a write key is needed)")


class Flows(Answer):
    """The configured flows, and the op params a run may change."""

    flows: list[FlowInfo]
    run_overrides: list[str]


class Forgotten(Answer):
    """What a forget erased (or, with dry_run, would erase)."""

    workspace_id: str
    user_id: str | None
    memories: int
    messages: int
    history: int
    sessions: int


class Problem(Answer):
    where: str = Field(description="the field or place ('' for the request as a whole)")
    message: str
    detail: str


class ErrorDetail(Answer):
    type: ErrorType = Field(description="the kind of error (the status table of flowmem.server.errors)")
    message: str = Field(description="what the CLI would print after 'flowmem: error:'")
    problems: list[Problem] = Field(description="each problem (one at least)")


class ErrorResponse(Answer):
    """Every 4xx and 5xx answer: ``{"error": {"type", "message", "problems"}}``, never a stack trace."""

    error: ErrorDetail


_ERROR = "every error has this body ({error: {type, message, problems}}); the status says which kind: "
ERRORS: dict[int | str, dict[str, Any]] = {
    "4XX": {"model": ErrorResponse, "description": _ERROR + "400 bad input, 401/403 the key, 404, 408 too slow to "
            "send, 409 a conflict, 413 too large, 421 unknown host, 422 not the documented JSON or a flow that "
            "cannot run"},
    "5XX": {"model": ErrorResponse, "description": _ERROR + "500 an op failed (or a bug: its type only), 503 the "
            "store or a model unreachable or too many connections, 504 over server.request_timeout"},
}  # fmt: skip
"""The error answers of every ``/v1`` route (their body: :data:`ErrorResponse`; flowmem.server.errors)."""


class Health(Answer):
    status: str = Field(description="ok")


class Ready(Answer):
    """Whether the store and every embedding model answer (503 with the first error otherwise)."""

    status: str = Field(description="ready, or unavailable")
    checks: dict[str, str] = Field(description="each backend that answered: ok")
    error: ErrorDetail | None = Field(None, description="why not ready (503)")
