"""LangChain on flowmem: a chat message history on a flowmem chat session, and a retriever over memories.

```python
from langchain_core.runnables.history import RunnableWithMessageHistory
from flowmem import App
from flowmem.integrations.langchain import FlowmemChatMessageHistory, FlowmemRetriever

app = App()
chain = RunnableWithMessageHistory(
    prompt | model, lambda session_id: FlowmemChatMessageHistory(session_id, app, user_id="alice"),
    input_messages_key="question", history_messages_key="history",
)
retriever = FlowmemRetriever(app=app, user_id="alice", k=5)  # retriever.invoke("what does alice eat?")
```

:class:`FlowmemChatMessageHistory` is a ``BaseChatMessageHistory``: every message added joins the session's
short-term window as one flowmem message that keeps the LangChain message exactly
(``metadata["langchain_message"]``) beside its text (:meth:`app.memories.add_to_session
<flowmem.memories.Memories.add_to_session>`). When the window passes its share of ``token_limit``, the oldest
messages are flushed to long-term memory through the write flow — the user's own messages become typed, timed,
de-duplicated memories that :class:`FlowmemRetriever` and ``app.memories.search`` find in any later session — and a
rolling summary keeps what they said: ``messages`` is the window, after the summary as one ``SystemMessage``.

:class:`FlowmemRetriever` is a ``BaseRetriever`` over :meth:`app.memories.search
<flowmem.memories.Memories.search>` (the retrieval flow, ``personal_retrieve`` by default): one ``Document`` per
memory, best first, ``page_content`` the memory's words, ``metadata`` its ``id``, ``type``, ``time`` (when it was
said, ISO 8601) and final ``score``.

Sync and async: the async calls (``aget_messages``, ``aadd_messages``, ``aclear``, ``ainvoke``) await the memory
service; the sync ones run it on the app's own event loop (``app.memories.sync``), so they cannot be called inside
a running loop. Needs ``pip install 'flowmem[langchain]'``. ``app`` may be a
:class:`~flowmem.integrations.remote.RemoteApp` (a remote ``flowmem serve``) instead of an ``App``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from flowmem.integrations import requires
from flowmem.integrations.sessions import SUMMARY_PREFIX, SessionAdapter
from flowmem.memories.service import SEARCH_FLOW
from flowmem.schema.kinds import DEFAULT_WORKSPACE
from flowmem.schema.memory import Memory, Message
from flowmem.schema.session import ChatSession

with requires("langchain", "langchain"):
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
    from langchain_core.chat_history import BaseChatMessageHistory
    from langchain_core.documents import Document
    from langchain_core.messages import (
        AIMessage,
        BaseMessage,
        ChatMessage,
        HumanMessage,
        SystemMessage,
        message_to_dict,
        messages_from_dict,
    )
    from langchain_core.retrievers import BaseRetriever

if TYPE_CHECKING:
    from flowmem.integrations import AnyApp

__all__ = ["MESSAGE_KEY", "FlowmemChatMessageHistory", "FlowmemRetriever", "langchain_message", "memory_document"]

MESSAGE_KEY = "langchain_message"
_ROLES = {"human": "user", "ai": "assistant", "system": "system"}  # any other type (tool, function) is "tool"


class FlowmemChatMessageHistory(SessionAdapter, BaseChatMessageHistory):
    """LangChain's ``BaseChatMessageHistory`` on flowmem's chat session ``session_id`` of ``user_id``:
    ``FlowmemChatMessageHistory(session_id, app, user_id=..., workspace_id=..., token_limit=...)``, the arguments
    and ``last`` of :class:`~flowmem.integrations.sessions.SessionAdapter`."""

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]  # LangChain declares it an attribute
        """The window's messages, oldest first, after the summary of what was flushed (a ``SystemMessage``)."""
        return self.app.run_coroutine(self.aget_messages())

    async def aget_messages(self) -> list[BaseMessage]:
        """The window's messages, oldest first, after the summary of what was flushed (a ``SystemMessage``)."""
        session = await self._window()
        return [] if session is None else session_messages(session)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append ``messages`` to the window (flushing the oldest to long-term memory when it is full)."""
        self.app.run_coroutine(self.aadd_messages(messages))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append ``messages`` to the window (flushing the oldest to long-term memory when it is full)."""
        await self._append([flowmem_message(m, self.user_id) for m in messages])

    def clear(self) -> None:
        """Delete the session's window and summary (the memories already flushed stay)."""
        self.app.run_coroutine(self.aclear())

    async def aclear(self) -> None:
        """Delete the session's window and summary (the memories already flushed stay)."""
        await self._clear()


class FlowmemRetriever(BaseRetriever):
    """LangChain's ``BaseRetriever`` over ``user_id``'s memories (:meth:`app.memories.search`).

    Attributes:
        app: The flowmem app whose memories are searched.
        user_id: Whose memories.
        workspace_id: The tenant scope.
        k: How many documents at most (default: the flow's own); ``invoke(query, k=3)`` overrides it per call.
        flow: The retrieval flow (``flowmem flows`` lists them).
    """

    app: Any  # flowmem.App or RemoteApp: typed loosely so that pydantic does not build a schema of it
    user_id: str
    workspace_id: str = DEFAULT_WORKSPACE
    k: int | None = None
    flow: str = SEARCH_FLOW

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        app: AnyApp = self.app
        return app.run_coroutine(self._search(query, k))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        return await self._search(query, k)

    async def _search(self, query: str, k: int | None) -> list[Document]:
        app: AnyApp = self.app
        found = await app.memories.search(
            query, user_id=self.user_id, workspace_id=self.workspace_id, flow=self.flow, top_k=k or self.k
        )
        return [memory_document(m) for m in found.memories]


# -- conversions ---------------------------------------------------------------------------------------
def memory_document(memory: Memory) -> Document:
    """A memory as a ``Document``: its words, with ``id``, ``type``, ``time`` (when it was said) and ``score``."""
    said = memory.message_time or memory.created_at
    metadata = {"id": memory.memory_id, "type": memory.memory_type, "time": said.isoformat(),
                "score": memory.scores.get("final")}  # fmt: skip
    return Document(page_content=memory.content, metadata=metadata, id=memory.memory_id)


def flowmem_message(message: BaseMessage, user_id: str) -> Message:
    """A LangChain message as a flowmem message: a human's is ``user_id``'s own (or its ``name``'s), so the write
    path takes it; the AI's is the assistant's; a system message is ``system``; anything else (tool results,
    function messages) is ``tool``. The message itself is kept whole in ``metadata``."""
    kind = message.role if isinstance(message, ChatMessage) else message.type
    role = {**_ROLES, "user": "user", "assistant": "assistant"}.get(kind, "tool")
    name = {"user": message.name or user_id, "assistant": "assistant"}.get(role, "")
    return Message(role=role, name=name, content=_words(message), metadata={MESSAGE_KEY: message_to_dict(message)})


def langchain_message(message: Message) -> BaseMessage:
    """The LangChain message a flowmem message holds (one written by flowmem itself becomes one of its role)."""
    kept = message.metadata.get(MESSAGE_KEY)
    if isinstance(kept, dict):
        return messages_from_dict([kept])[0]
    classes = {"user": HumanMessage, "assistant": AIMessage, "system": SystemMessage}
    made = classes.get(message.role)
    return made(content=message.content) if made else ChatMessage(role=message.role, content=message.content)


def session_messages(session: ChatSession) -> list[BaseMessage]:
    """A session's window as LangChain messages, after its summary as a ``SystemMessage`` when there is one."""
    summary: list[BaseMessage] = [SystemMessage(SUMMARY_PREFIX + session.summary)] if session.summary else []
    return [*summary, *(langchain_message(m) for m in session.messages)]


def _words(message: BaseMessage) -> str:
    """The text of a message; an AI message's tool calls as ``name(arguments)`` after it."""
    calls = [f"{c['name']}({json.dumps(c['args'], ensure_ascii=False)})" for c in getattr(message, "tool_calls", [])]
    return "\n".join(part for part in (str(message.text), *calls) if part)
