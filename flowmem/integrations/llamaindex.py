"""LlamaIndex on flowmem: a memory block of ``Memory`` that recalls flowmem memories, and a chat store on sessions.

```python
from llama_index.core.memory import Memory
from flowmem import App
from flowmem.integrations.llamaindex import FlowmemChatStore, FlowmemMemoryBlock

app = App()
memory = Memory.from_defaults(
    session_id="chat-1", memory_blocks=[FlowmemMemoryBlock(app=app, user_id="alice", priority=1)]
)
chat_store = FlowmemChatStore(app=app, user_id="alice")  # ChatMemoryBuffer.from_defaults(chat_store=chat_store)
```

:class:`FlowmemMemoryBlock` is a ``BaseMemoryBlock``: when ``Memory`` assembles a prompt, the block's content is
what flowmem's retrieval flow (:meth:`app.memories.search <flowmem.memories.Memories.search>`) recalls for the
latest user message — one line per memory, best first, with when it was said or happens — and ``Memory`` puts it
in its ``<memory>`` template. Under token pressure ``Memory`` truncates blocks by ``priority`` (0: never); this block
gives up its lowest-ranked memories first. The messages ``Memory`` ejects from its short-term queue are written to
long-term memory through the write flow (:meth:`app.memories.add <flowmem.memories.Memories.add>`: the user's own
become typed, timed, de-duplicated memories), unless ``accept_short_term_memory`` is false.

:class:`FlowmemChatStore` is a ``BaseChatStore`` (``ChatMemoryBuffer``, ``ChatSummaryMemoryBuffer``, chat engines)
whose key is a flowmem chat session of ``user_id``: each message joins the session's window, kept exactly
(``metadata["llamaindex_message"]``) beside its words (:meth:`app.memories.add_to_session
<flowmem.memories.Memories.add_to_session>`); when the window passes its share of ``token_limit`` the oldest are
flushed to long-term memory as the other session adapters do, and ``get_messages`` returns the window after the
rolling summary as a ``system`` message.

Sync and async: the async calls await the memory service; the sync ones run it on the app's own event loop, so they
cannot be called inside a running loop. Needs ``pip install 'flowmem[llamaindex]'``. ``app`` may be a
:class:`~flowmem.integrations.remote.RemoteApp` (a remote ``flowmem serve``) instead of an ``App``.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from flowmem.core.errors import InputError, Problem
from flowmem.core.tokens import count_tokens
from flowmem.integrations import requires
from flowmem.integrations.sessions import SUMMARY_PREFIX, SessionAdapter
from flowmem.memories.service import SEARCH_FLOW
from flowmem.schema.kinds import DEFAULT_WORKSPACE
from flowmem.schema.memory import Message

with requires("llamaindex", "llamaindex"):
    from llama_index.core.bridge.pydantic import Field, PrivateAttr
    from llama_index.core.llms import ChatMessage, MessageRole
    from llama_index.core.memory import BaseMemoryBlock
    from llama_index.core.storage.chat_store import BaseChatStore

if TYPE_CHECKING:
    from flowmem.integrations import AnyApp
    from flowmem.schema.session import ChatSession

__all__ = ["MESSAGE_KEY", "FlowmemChatStore", "FlowmemMemoryBlock", "flowmem_message", "llamaindex_message"]

MESSAGE_KEY = "llamaindex_message"
T = TypeVar("T")
_ROLES = {"user": "user", "assistant": "assistant", "chatbot": "assistant", "model": "assistant",
          "system": "system", "developer": "system"}  # fmt: skip  # function and tool messages are "tool"


class FlowmemMemoryBlock(BaseMemoryBlock[str]):
    """A block of LlamaIndex ``Memory`` holding what flowmem recalls for the latest user message.

    Attributes:
        app: The flowmem app whose memories are searched and written.
        user_id: Whose memories.
        workspace_id: The tenant scope.
        top_k: How many memories at most (default: the flow's own).
        flow: The retrieval flow (``flowmem flows`` lists them).
        name: The block's name in ``Memory``'s template (``<flowmem>``).
        priority: ``Memory``'s truncation order (0: never truncated; 1 the last to go, higher sooner).
        accept_short_term_memory: Whether messages ejected from ``Memory``'s queue are written to flowmem.
    """

    app: Any = Field(exclude=True, description="The flowmem App (flowmem.App), or a RemoteApp.")
    user_id: str = Field(description="Whose memories.")
    workspace_id: str = Field(default=DEFAULT_WORKSPACE, description="The tenant scope.")
    top_k: int | None = Field(default=None, description="How many memories at most (default: the flow's own).")
    flow: str = Field(default=SEARCH_FLOW, description="The retrieval flow.")
    name: str = Field(default="flowmem", description="The block's name in Memory's template.")
    description: str | None = Field(default="What flowmem remembers about the user that bears on the latest message.")

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        """One line per memory recalled for the latest user message, best first; empty without one."""
        query = next((_words(m) for m in reversed(messages or []) if m.role == MessageRole.USER), "")
        if not query.strip():
            return ""
        app: AnyApp = self.app
        found = await app.memories.search(
            query, user_id=self.user_id, workspace_id=self.workspace_id, flow=self.flow, top_k=self.top_k
        )
        return "\n".join(f"- {m.display_line()}" for m in found.memories)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Write the messages ejected from ``Memory``'s queue to long-term memory (the user's own become memories)."""
        said = [flowmem_message(m, self.user_id) for m in messages]
        if any(m.is_users(self.user_id) for m in said):  # nothing of the user's: nothing to remember
            app: AnyApp = self.app
            await app.memories.add(said, user_id=self.user_id, workspace_id=self.workspace_id)

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drop the lowest-ranked memories until about ``tokens_to_truncate`` tokens are gone."""
        lines = content.splitlines()
        while lines and tokens_to_truncate > 0:
            tokens_to_truncate -= count_tokens(lines.pop()) + 1
        return "\n".join(lines) or None


class FlowmemChatStore(BaseChatStore):
    """LlamaIndex's ``BaseChatStore`` whose keys are flowmem chat sessions of ``user_id``.

    ``get_keys`` lists the sessions this store wrote (in this process) that still exist: flowmem does not list a
    user's sessions. ``delete_message`` takes out the newest message only (the window is a queue); ``set_messages``
    replaces the window and its summary.

    Attributes:
        app: The flowmem app whose memory service keeps the sessions and the memories.
        user_id: Whose sessions: the user whose messages become long-term memories on flush.
        workspace_id: The tenant scope.
        token_limit: The prompt budget a window is a share of (default: ``short_term_memory_op``'s own).
    """

    app: Any = Field(exclude=True, description="The flowmem App (flowmem.App), or a RemoteApp.")
    user_id: str = Field(description="Whose sessions.")
    workspace_id: str = Field(default=DEFAULT_WORKSPACE, description="The tenant scope.")
    token_limit: int | None = Field(default=None, description="The prompt budget a window is a share of.")
    _keys: dict[str, None] = PrivateAttr(default_factory=dict)  # the sessions written, in order

    @classmethod
    def class_name(cls) -> str:
        return "FlowmemChatStore"

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        app: AnyApp = self.app
        return app.run_coroutine(coroutine)

    def _session(self, key: str) -> SessionAdapter:
        return SessionAdapter(key, self.app, user_id=self.user_id, workspace_id=self.workspace_id,
                              token_limit=self.token_limit)  # fmt: skip

    # -- async: the calls themselves -------------------------------------------------------------------
    async def aget_messages(self, key: str) -> list[ChatMessage]:
        session = await self._session(key)._window()
        return [] if session is None else _session_messages(session)

    async def aset_messages(self, key: str, messages: list[ChatMessage]) -> None:
        await self._session(key)._clear()
        await self.aadd_messages(key, messages)

    async def async_add_message(self, key: str, message: ChatMessage) -> None:
        await self.aadd_messages(key, [message])

    async def adelete_messages(self, key: str) -> list[ChatMessage] | None:
        session = await self._session(key)._window()
        if session is None:
            return None
        await self._session(key)._clear()
        return _session_messages(session)

    async def adelete_message(self, key: str, idx: int) -> ChatMessage | None:
        messages = await self.aget_messages(key)
        if not 0 <= idx < len(messages):
            return None
        if idx != len(messages) - 1:
            newest = f"the newest message of a session only: {len(messages) - 1} (or delete_last_message)"
            raise InputError([Problem("idx", f"flowmem takes out {newest}, not {idx}")])
        return await self.adelete_last_message(key)

    async def adelete_last_message(self, key: str) -> ChatMessage | None:
        message = await self._session(key)._pop()
        return None if message is None else llamaindex_message(message)

    async def aget_keys(self) -> list[str]:
        return [key for key in self._keys if await self._session(key)._window() is not None]

    # -- sync: the same on the app's own event loop ------------------------------------------------------
    def get_messages(self, key: str) -> list[ChatMessage]:
        return self._run(self.aget_messages(key))

    def set_messages(self, key: str, messages: list[ChatMessage]) -> None:
        self._run(self.aset_messages(key, messages))

    def add_message(self, key: str, message: ChatMessage) -> None:
        self._run(self.async_add_message(key, message))

    def delete_messages(self, key: str) -> list[ChatMessage] | None:
        return self._run(self.adelete_messages(key))

    def delete_message(self, key: str, idx: int) -> ChatMessage | None:
        return self._run(self.adelete_message(key, idx))

    def delete_last_message(self, key: str) -> ChatMessage | None:
        return self._run(self.adelete_last_message(key))

    def get_keys(self) -> list[str]:
        return self._run(self.aget_keys())

    async def aadd_messages(self, key: str, messages: list[ChatMessage]) -> None:
        """Append ``messages`` to the session ``key`` at once (flushing the oldest when the window is full)."""
        self._keys[key] = None
        await self._session(key)._append([flowmem_message(m, self.user_id) for m in messages])


# -- conversions ---------------------------------------------------------------------------------------
def flowmem_message(message: ChatMessage, user_id: str) -> Message:
    """A LlamaIndex message as a flowmem message: a user's is ``user_id``'s own (so the write path takes it), an
    assistant's (chatbot, model) the assistant's, system and developer messages ``system``, function and tool
    messages ``tool``; the message itself is kept whole in ``metadata``."""
    role = _ROLES.get(MessageRole(message.role).value, "tool")
    name = {"user": user_id, "assistant": "assistant"}.get(role, "")
    kept = message.model_dump(mode="json")
    return Message(role=role, name=name, content=_words(message), metadata={MESSAGE_KEY: kept})


def llamaindex_message(message: Message) -> ChatMessage:
    """The LlamaIndex message a flowmem message holds (one written by flowmem itself becomes one of its role)."""
    kept = message.metadata.get(MESSAGE_KEY)
    if isinstance(kept, dict):
        return ChatMessage.model_validate(kept)
    return ChatMessage(role=message.role, content=message.content)


def _session_messages(session: ChatSession) -> list[ChatMessage]:
    summary = [ChatMessage(role="system", content=SUMMARY_PREFIX + session.summary)] if session.summary else []
    return [*summary, *(llamaindex_message(m) for m in session.messages)]


def _words(message: ChatMessage) -> str:
    """The text blocks of a message (its tool calls, kept in the message, are not words)."""
    return "".join(getattr(block, "text", "") for block in message.blocks if block.block_type == "text")
