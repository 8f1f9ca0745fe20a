"""A user's chat through the default write path, for tests that read what it left: ``said`` sends ``(when, text)``
messages of one user through ``personal_summary`` on the memory store and returns every memory of theirs."""

from __future__ import annotations

import asyncio
from datetime import datetime

from flowmem import App
from flowmem.schema.memory import Memory, Message


async def said(texts: list[tuple[str, str]], user: str = "kim") -> list[Memory]:
    messages = [
        Message(message_id=f"m{i}", role="user", name=user, content=text, time_created=datetime.fromisoformat(at))
        for i, (at, text) in enumerate(texts)
    ]
    async with App(overrides=["vector_store.default.backend=memory"]) as app:
        await app.memories.add(messages, user_id=user, workspace_id="w", flow="personal_summary")
        page = await app.memories.list(workspace_id="w", user_id=user, limit=None)
    return page.memories


def status_after(old: str, new: str, words: str) -> list[str]:
    """The status of each memory holding ``words`` (case aside) after ``old`` then, five weeks later, ``new``."""
    memories = asyncio.run(said([("2025-03-03T09:00:00", old), ("2025-04-07T09:00:00", new)]))
    return [m.status for m in memories if words.lower() in m.content.lower()]
