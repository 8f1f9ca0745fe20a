"""The JSON bodies the HTTP API accepts (FastAPI validates them and documents them at ``/docs``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from flowmem.schema.kinds import DEFAULT_WORKSPACE, SEARCH_FLOW


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AddBody(_Body):
    """Remember chat ``messages`` (through the write flow) or one ``text`` as given — one of the two.

    The answer counts the messages left out by reason (``skipped``, with example ids in ``skipped_ids``);
    messages none of which is the user's are a 400 naming the names found.
    """

    messages: list[dict[str, Any]] | None = Field(
        None,
        description="chat messages: {role, content, name?, message_id?, time_created?}; the user's are those with "
        "role 'user' and name user_id (or no name), the others are skipped and counted",
    )
    text: str | None = Field(None, description="one fact to remember in its own words")
    user_id: str = Field(description="whom the memories are about")
    workspace_id: str = Field(DEFAULT_WORKSPACE, description="the tenant")
    timestamp: datetime | None = Field(None, description="when `text` was said (ISO 8601; default now)")
    flow: str | None = Field(None, description="the write flow (default personal_summary / personal_add)")


class UpdateBody(_Body):
    """A memory's new text (re-embedded; an ``update`` in its history)."""

    content: str = Field(description="the new text")
    workspace_id: str = Field(DEFAULT_WORKSPACE, description="the tenant")


class SearchBody(_Body):
    """Recall a user's memories for a query."""

    query: str = Field(description="the question or text to recall memories for")
    user_id: str = Field(description="whose memories")
    workspace_id: str = Field(DEFAULT_WORKSPACE, description="the tenant")
    flow: str = Field(SEARCH_FLOW, description="the retrieval flow")
    top_k: int | None = Field(None, ge=1, le=1000, description="how many memories at most (default: the flow's)")
    timestamp: datetime | None = Field(None, description="when the question is asked (default now)")
    explain: bool = Field(False, description="add the flow's trace and every score factor")


class RunBody(_Body):
    """Run a configured flow."""

    inputs: dict[str, Any] = Field(default_factory=dict, description="the flow's inputs (query, user_id, …)")
    workspace_id: str = Field(DEFAULT_WORKSPACE, description="the tenant (an input naming another is an error)")
    op_params: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="{op: {param: value}} for this run only; only params in server.run_overrides",
    )
    explain: bool = Field(False, description="add the trace")


class ContextBody(_Body):
    """One chat turn: store the message in the session's short-term memory and get the context for the reply."""

    message: str = Field(description="the user's new chat message")
    user_id: str = Field(description="whose session (and whose memories)")
    session_id: str = Field(description="the chat session (a new id starts an empty one)")
    workspace_id: str = Field(DEFAULT_WORKSPACE, description="the tenant")
    token_limit: int | None = Field(
        None,
        le=10_000_000,
        description="the prompt's token budget (at least what the flow's ops need: 16 for chat_context)",
    )  # its least value is the flow's, checked by the memory service: one bound, one message
    reply: str | None = Field(None, description="the assistant's answer to the previous message, stored first")
    timestamp: datetime | None = Field(None, description="when the message was sent (default now)")
    explain: bool = Field(False, description="add the flow's trace: what was kept, summarised and cut")


class AppendBody(_Body):
    """Messages an agent framework keeps, appended to a chat session's window as given (nothing is retrieved).

    When the window passes its share of ``token_limit``, the oldest messages are flushed to long-term memory (the
    user's own become memories), as a chat turn does.
    """

    messages: list[dict[str, Any]] = Field(
        min_length=1, description="chat messages: {role, content, name?, message_id?, time_created?, metadata?}"
    )
    user_id: str = Field(description="whose session (and whose memories)")
    workspace_id: str = Field(DEFAULT_WORKSPACE, description="the tenant")
    token_limit: int | None = Field(None, le=10_000_000, description="the prompt's token budget the window shares")


class ImportBody(_Body):
    """Ready-made memories (as ``GET /v1/memories`` lists them) stored as given: a memory whose id exists is
    replaced (an ``update`` in its history), others are added; memories without a vector are embedded."""

    memories: list[dict[str, Any]] = Field(description="memory records; each names this workspace (or none)")
    workspace_id: str = Field(DEFAULT_WORKSPACE, description="the tenant")
    reason: str = Field("imported", max_length=200, description="the reason each history event gives")
