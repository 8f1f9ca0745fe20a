"""A chat session's short-term memory: the recent messages of one (workspace, user, session).

The window is FIFO: ``short_term_memory_op`` appends each new message and, when the window's
tokens cross ``chat_history_token_ratio`` of its ``token_limit``, the oldest messages are flushed
to long-term memory through the write flow; they leave ``messages`` only after that write was
acknowledged (the memory service trims them then). ``summary`` is the rolling summary of what left
the window (LangChain's summary buffer memory). Stores keep a session as one record, replaced whole
with optimistic versioning (``version`` goes up by one per write; a write from a stale read is
refused with :class:`~flowmem.vector_store.rules.SessionConflictError`).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from flowmem.schema.memory import Message


def _now() -> datetime:
    return datetime.now().replace(microsecond=0)


class ChatSession(BaseModel):
    """One session's short-term chat memory, as stored.

    Attributes:
        workspace_id: The tenant scope.
        user_id: Whose session (the user the flushed memories are about).
        session_id: The session's id (one rule with every other id: ``rules.ID_RULE``).
        messages: The window, oldest first.
        summary: The rolling summary of the messages that left the window.
        flushed: How many messages have left the window for long-term memory so far.
        version: The write count: 1 after the first write; each write stores ``version + 1`` of what it read.
        updated_at: When it was last written.
    """

    model_config = ConfigDict(extra="forbid")

    workspace_id: str
    user_id: str
    session_id: str
    messages: list[Message] = Field(default_factory=list)
    summary: str = ""
    flushed: int = 0
    version: int = 0
    updated_at: datetime = Field(default_factory=_now)

    def next_version(self, **changes: object) -> ChatSession:
        """A copy with ``changes``, one version on and stamped now: what a write of this read stores."""
        return self.model_copy(update={**changes, "version": self.version + 1, "updated_at": _now()}, deep=True)


class SessionFlush(BaseModel):
    """What ``short_term_memory_op`` decided should leave a session's window (the context key ``session_flush``).

    The op stores the window with these messages still in it; the memory service writes them to
    long-term memory through the write flow and, once that write is acknowledged, trims them from
    the stored window and stores ``summary`` (so a failed write loses nothing: the next turn flushes
    them again, and the message ledger skips any the failed write had already memorized).

    Attributes:
        messages: The oldest messages of the window, oldest first.
        tokens: Their tokens (chat framing included).
        summary: The rolling summary once they have left the window.
    """

    model_config = ConfigDict(extra="forbid")

    messages: list[Message]
    tokens: int
    summary: str
