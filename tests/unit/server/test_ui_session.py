"""The web inspector's chat session page in process: what a session flushed to long-term memory, and when.

A chat turn's flush writes the session's oldest messages through the write flow; the memories keep the session
in ``metadata["session"]``, and the session page lists them (escaped), newest first, each linked to its page.
"""

from __future__ import annotations

import asyncio
import re

import httpx

from flowmem.app import App
from flowmem.memories import browse
from flowmem.server.app import create_app
from tests.unit.server.test_ui_pages import KEY, KEYS, _sign_in

# A small window: a few short messages fill it, and the oldest are flushed (as in tests/unit/memories/test_chat.py).
SMALL_WINDOW = ["op.short_term_memory_op.params.chat_history_token_ratio=0.5",
                "op.short_term_memory_op.params.token_flush_size=30"]  # fmt: skip
TURNS = [
    "<script>alert(2)</script> My dog is called Rex.",
    "I work as a nurse at the city hospital.",
    "I am allergic to peanuts.",
    "My sister Ana lives in Porto.",
    "I play the cello on Sundays.",
]


def test_the_session_page_lists_what_the_session_flushed() -> None:
    async def main() -> None:
        app = App({"embedding_model": {"default": {"backend": "hash"}}, "llm": {"default": {"backend": "none"}},
                   "server": KEYS, "vector_store": {"default": {"backend": "memory"}}}, SMALL_WINDOW)  # fmt: skip
        try:
            flushed = 0
            for text in TURNS:
                turn = await app.memories.context(text, user_id="alice", session_id="s1", workspace_id="w",
                                                  token_limit=120)  # fmt: skip
                flushed += turn.flushed_messages
            assert flushed >= 2, "the window never flushed"
            # a memory of the same user written outside the session is not listed
            await app.memories.add(text="I drive a blue Fiat.", user_id="alice", workspace_id="w")
            found = await browse.of_session(app.memories, workspace_id="w", user_id="alice", session_id="s1")
            assert found.memories and not found.more
            assert all(m.metadata["session"] == "s1" for m in found.memories)
            rex = next(m for m in found.memories if "Rex" in m.content)
            transport = httpx.ASGITransport(app=create_app(app))
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
                await _sign_in(client, KEY)
                page = await client.get("/ui/w/w/u/alice/session", params={"id": "s1"})
                assert page.status_code == 200
                html = page.text
                listed = html.split("Flushed to long-term memory", 1)[1]
                assert f'href="/ui/w/w/m/{rex.memory_id}"' in listed and "said " in listed
                assert "<script>alert" not in html
                assert "&lt;script&gt;alert(2)&lt;/script&gt; My dog is called Rex" in listed
                assert "nurse at the city hospital" in listed and "blue Fiat" not in listed
                shown = re.findall(r'href="/ui/w/w/m/([^"]+)"', listed)
                newest_first = sorted(found.memories, key=lambda m: (m.created_at, m.memory_id), reverse=True)
                assert shown == [m.memory_id for m in newest_first]
                assert 'class="chip valid">valid<' in listed
                # cleared, the window is gone but what it flushed stays listed
                assert await app.memories.clear_session("s1", user_id="alice", workspace_id="w")
                cleared = await client.get("/ui/w/w/u/alice/session", params={"id": "s1"})
                assert cleared.status_code == 200 and "window is gone" in cleared.text
                assert f"/ui/w/w/m/{rex.memory_id}" in cleared.text
                missing = await client.get("/ui/w/w/u/alice/session", params={"id": "nope"})
                assert missing.status_code == 404
        finally:
            await app.aclose()

    asyncio.run(main())
