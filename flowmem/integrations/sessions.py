"""What the session adapters share: one user's flowmem chat session, read, appended to and cleared.

The OpenAI Agents ``Session`` and LangChain's chat message history are each this plus their framework's message
conversion; the memory service does the work (:meth:`app.memories.add_to_session
<flowmem.memories.Memories.add_to_session>`, ``pop_from_session``, ``session``, ``clear_session``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from flowmem.core.errors import NotFoundError
from flowmem.schema.kinds import DEFAULT_WORKSPACE

if TYPE_CHECKING:
    from flowmem.integrations import AnyApp
    from flowmem.memories.chat import ContextResult
    from flowmem.schema.memory import Message
    from flowmem.schema.session import ChatSession
    from flowmem.server.responses import ContextResponse

# How a session adapter shows the rolling summary of what left the window, first among its messages.
SUMMARY_PREFIX = "Summary of the earlier conversation:\n"


class SessionAdapter:
    """A flowmem chat session ``session_id`` of ``user_id``, as a framework's session object holds it.

    Args:
        session_id: The chat session (any id under flowmem's id rule; a new one starts empty).
        app: The flowmem app whose memory service (``app.memories``) keeps the session and the memories (or a
            :class:`~flowmem.integrations.remote.RemoteApp`: a remote ``flowmem serve``).
        user_id: Whose session: the user whose messages become long-term memories on flush.
        workspace_id: The tenant scope.
        token_limit: The prompt budget the window is a share of (default: ``short_term_memory_op``'s own).

    Attributes:
        last: What the last append did: the window, the summary, and what was flushed (``last.flushed``; from a
            ``RemoteApp``, the API's answer of it).
    """

    def __init__(
        self,
        session_id: str,
        app: AnyApp,
        *,
        user_id: str,
        workspace_id: str = DEFAULT_WORKSPACE,
        token_limit: int | None = None,
    ):
        self.session_id = session_id
        self.app = app
        self.user_id = user_id
        self.workspace_id = workspace_id
        self.token_limit = token_limit
        self.last: ContextResult | ContextResponse | None = None

    async def _window(self) -> ChatSession | None:
        """The session as stored; ``None`` before its first message."""
        try:
            return await self.app.memories.session(
                self.session_id, user_id=self.user_id, workspace_id=self.workspace_id
            )
        except NotFoundError:
            return None

    async def _append(self, messages: Sequence[Message]) -> None:
        """Append ``messages`` to the window (flushing the oldest to long-term memory when it is full)."""
        if messages:
            self.last = await self.app.memories.add_to_session(
                self.session_id, messages, user_id=self.user_id, workspace_id=self.workspace_id,
                token_limit=self.token_limit,
            )  # fmt: skip

    async def _pop(self) -> Message | None:
        """Take the newest message out of the window; ``None`` when it is empty."""
        return await self.app.memories.pop_from_session(
            self.session_id, user_id=self.user_id, workspace_id=self.workspace_id
        )

    async def _clear(self) -> None:
        """Delete the session's window and summary (the memories already flushed stay)."""
        await self.app.memories.clear_session(self.session_id, user_id=self.user_id, workspace_id=self.workspace_id)
