"""An OpenAI Agents SDK ``Session`` on a flowmem chat session, with long-term memory written as the window flushes.

```python
from agents import Agent, Runner
from flowmem import App
from flowmem.integrations.openai_agents import FlowmemSession

async with App() as app:
    session = FlowmemSession("trip-chat", app, user_id="alice")
    result = await Runner.run(Agent(name="Assistant"), "I moved to Lisbon last week", session=session)
```

Every item the Runner adds (user and assistant messages, tool calls and their outputs, reasoning) joins the
session's short-term window as one flowmem message that keeps the item exactly (``metadata["openai_agents_item"]``)
beside its text (:meth:`app.memories.add_to_session <flowmem.memories.Memories.add_to_session>`). When the window
passes its share of ``token_limit``, the oldest messages are flushed to long-term memory through the write flow
— the user's own messages become typed, timed, de-duplicated memories (``app.memories.search`` finds them in any
later session) — and leave the window; a rolling summary keeps what they said. ``get_items`` returns the window's
items, after the summary as one ``system`` message when there is one and no ``limit`` is asked.

Needs ``pip install 'flowmem[openai-agents]'``. ``app`` may be a :class:`~flowmem.integrations.remote.RemoteApp` (a
remote ``flowmem serve``) instead of an ``App``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from pydantic_core import to_jsonable_python

from flowmem.integrations import requires
from flowmem.integrations.sessions import SUMMARY_PREFIX, SessionAdapter
from flowmem.schema.kinds import DEFAULT_WORKSPACE
from flowmem.schema.memory import Message

with requires("openai_agents", "openai-agents"):
    from agents.memory.session_settings import SessionSettings, resolve_session_limit

if TYPE_CHECKING:
    from agents.items import TResponseInputItem

    from flowmem.integrations import AnyApp

__all__ = ["ITEM_KEY", "FlowmemSession", "item_message"]

ITEM_KEY = "openai_agents_item"


class FlowmemSession(SessionAdapter):
    """The ``agents.memory.Session`` protocol on flowmem's chat session ``session_id`` of ``user_id``.

    Args:
        session_id: The chat session (any id under flowmem's id rule; a new one starts empty).
        app: The flowmem app whose memory service (``app.memories``) keeps the session and the memories.
        user_id: Whose session: the user whose messages become long-term memories on flush.
        workspace_id: The tenant scope.
        token_limit: The prompt budget the window is a share of (default: ``short_term_memory_op``'s own).
        session_settings: The SDK's settings (``limit``: how many items ``get_items`` returns by default).

    Attributes:
        last: What the last ``add_items`` did: the window, the summary, and what was flushed (``last.flushed``).
    """

    def __init__(
        self,
        session_id: str,
        app: AnyApp,
        *,
        user_id: str,
        workspace_id: str = DEFAULT_WORKSPACE,
        token_limit: int | None = None,
        session_settings: SessionSettings | None = None,
    ):
        super().__init__(session_id, app, user_id=user_id, workspace_id=workspace_id, token_limit=token_limit)
        self.session_settings = session_settings

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The window's items, oldest first (the newest ``limit``); with no limit, the summary of what was flushed
        first, as a ``system`` message."""
        session = await self._window()
        if session is None:
            return []
        items = [message_item(m) for m in session.messages]
        wanted = resolve_session_limit(limit, self.session_settings)
        if wanted is not None:
            return items[-wanted:] if wanted > 0 else []
        if session.summary:
            items.insert(0, cast("TResponseInputItem", {"role": "system", "content": SUMMARY_PREFIX + session.summary}))
        return items

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` to the window (flushing the oldest to long-term memory when it is full)."""
        await self._append([item_message(cast("Mapping[str, Any]", item), self.user_id) for item in items])

    async def pop_item(self) -> TResponseInputItem | None:
        """Take the newest item out of the window; ``None`` when it is empty."""
        message = await self._pop()
        return None if message is None else message_item(message)

    async def clear_session(self) -> None:
        """Delete the session's window and summary (the memories already flushed stay)."""
        await self._clear()


def item_message(item: Mapping[str, Any], user_id: str) -> Message:
    """One SDK input item as a flowmem message: a user's message is ``user_id``'s own (so the write path takes it),
    the assistant's is the assistant's, system and developer messages are ``system``, anything else (tool calls,
    their outputs, reasoning) is ``tool``; the item itself is kept whole in ``metadata``."""
    data = to_jsonable_python(dict(item))
    role = data.get("role")
    if data.get("type", "message") == "message" and role in ("user", "assistant", "system", "developer"):
        kind = "system" if role == "developer" else role
        name = {"user": user_id, "assistant": "assistant"}.get(role, "")
    else:
        kind, name = "tool", ""
    return Message(role=kind, name=name, content=item_text(data), metadata={ITEM_KEY: data})


def message_item(message: Message) -> TResponseInputItem:
    """The SDK item a message holds (a message written by flowmem itself becomes a plain ``{role, content}``)."""
    item = message.metadata.get(ITEM_KEY) or {"role": message.role, "content": message.content}
    return cast("TResponseInputItem", item)


def item_text(item: Mapping[str, Any]) -> str:
    """The words of an item: its text parts, a tool call as ``name(arguments)``, a tool's output."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") or p.get("refusal") or "" for p in content if isinstance(p, dict)]
        return " ".join(p for p in parts if p)
    if item.get("type") == "function_call":
        return f"{item.get('name', '')}({item.get('arguments', '')})"
    output = item.get("output")
    if output is not None:
        return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    return ""
