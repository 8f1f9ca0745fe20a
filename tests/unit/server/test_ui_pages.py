"""The web inspector's rules in process (no browser): sign-in, sessions, CSRF, scopes, read-only keys, escaping.

tests/integration/test_ui_browser.py drives the same pages in Chromium against a real ``flowmem serve``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from flowmem.app import App
from flowmem.server.app import create_app

KEY, READER = "ui-key-0123456789abcdef", "ui-reader-0123456789abcdef"
KEYS = {"api_keys": [{"name": "writer", "key": KEY, "workspaces": ["w", "v"]},
                     {"name": "reader", "key": READER, "workspaces": ["w"], "read_only": True}]}  # fmt: skip
Check = Callable[[httpx.AsyncClient, App], Awaitable[None]]


def _run(check: Check, server: dict[str, Any] | None = None) -> None:
    async def main() -> None:
        app = App({"embedding_model": {"default": {"backend": "hash"}}, "server": KEYS if server is None else server,
                   "vector_store": {"default": {"backend": "memory"}}})  # fmt: skip
        try:
            await app.memories.add(text="<script>alert(1)</script> I like tea", user_id="alice", workspace_id="w")
            transport = httpx.ASGITransport(app=create_app(app))
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
                await check(client, app)
        finally:
            await app.aclose()

    asyncio.run(main())


def _token(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None, html
    return found.group(1)


async def _sign_in(client: httpx.AsyncClient, key: str) -> httpx.Response:
    form = await client.get("/ui/signin")
    return await client.post("/ui/signin", data={"csrf": _token(form.text), "api_key": key})


async def _memory_id(client: httpx.AsyncClient) -> str:
    page = await client.get("/ui/w/w/u/alice")
    found = re.search(r"/ui/w/w/m/([0-9a-f]+)", page.text)
    assert found is not None, page.text
    return found.group(1)


def test_pages_need_a_session_and_the_cookie_never_holds_the_key() -> None:
    async def check(client: httpx.AsyncClient, app: App) -> None:
        refused = await client.get("/ui/w/w")
        assert refused.status_code == 303 and refused.headers["location"] == "/ui/signin"
        bad = await _sign_in(client, "wrong")
        assert bad.status_code == 401 and "the API key is not valid" in bad.text
        good = await _sign_in(client, KEY)
        assert good.status_code == 303
        cookie = good.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and KEY not in cookie
        page = await client.get("/ui/w/w")
        assert page.status_code == 200 and "alice" in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]

    _run(check)


def test_a_sign_in_form_without_its_token_is_refused() -> None:
    async def check(client: httpx.AsyncClient, app: App) -> None:
        response = await client.post("/ui/signin", data={"csrf": "guess", "api_key": KEY})
        assert response.status_code == 403 and "sign in again" in response.text
        assert "flowmem_ui=" not in response.headers.get("set-cookie", "")

    _run(check)


def test_memory_text_is_escaped_everywhere() -> None:
    async def check(client: httpx.AsyncClient, app: App) -> None:
        await _sign_in(client, KEY)
        memory_id = await _memory_id(client)
        for path in ("/ui/w/w/u/alice", f"/ui/w/w/m/{memory_id}", "/ui/w/w/u/alice/search?q=tea"):
            html = (await client.get(path)).text
            assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html, path

    _run(check)


def test_posts_need_the_sessions_csrf_token() -> None:
    async def check(client: httpx.AsyncClient, app: App) -> None:
        await _sign_in(client, KEY)
        memory_id = await _memory_id(client)
        for sent in ({"content": "forged"}, {"content": "forged", "csrf": "guess"}):
            response = await client.post(f"/ui/w/w/m/{memory_id}/edit", data=sent)
            assert response.status_code == 403 and "CSRF" in response.text
        assert "I like tea" in (await app.memories.get(memory_id, workspace_id="w")).content
        token = _token((await client.get(f"/ui/w/w/m/{memory_id}")).text)
        done = await client.post(f"/ui/w/w/m/{memory_id}/edit", data={"content": "I like green tea", "csrf": token})
        assert done.status_code == 303
        assert (await app.memories.get(memory_id, workspace_id="w")).content == "I like green tea"

    _run(check)


def test_a_read_only_key_sees_no_controls_and_its_posts_are_refused() -> None:
    async def check(client: httpx.AsyncClient, app: App) -> None:
        await _sign_in(client, READER)
        memory_id = await _memory_id(client)
        page = (await client.get(f"/ui/w/w/m/{memory_id}")).text
        assert "/edit" not in page and "/delete" not in page and "/expire" not in page
        token = _token(page)  # the sign-out form's: a valid token, so only the key can refuse
        for action in ("edit", "expire", "delete"):
            response = await client.post(f"/ui/w/w/m/{memory_id}/{action}", data={"csrf": token, "content": "x"})
            assert response.status_code == 403 and "read-only" in response.text, action
        forget = await client.post("/ui/w/w/u/alice/forget", data={"csrf": token, "confirm": "alice"})
        assert forget.status_code == 403
        assert (await app.memories.get(memory_id, workspace_id="w")).status == "valid"

    _run(check)


def test_a_workspace_beyond_the_key_is_refused() -> None:
    async def check(client: httpx.AsyncClient, app: App) -> None:
        await _sign_in(client, READER)
        for path in ("/ui/w/v", "/ui/w/v/u/alice", "/ui/w/v/u/alice/search?q=tea", "/ui/w/v/u/alice/forget"):
            response = await client.get(path)
            assert response.status_code == 403 and "may not use workspace &#39;v&#39;" in response.text, path

    _run(check)


def test_forget_needs_the_users_id_typed() -> None:
    async def check(client: httpx.AsyncClient, app: App) -> None:
        await _sign_in(client, KEY)
        dry = await client.get("/ui/w/w/u/alice/forget")
        assert dry.status_code == 200 and "<strong>1</strong> memories" in dry.text
        token = _token(dry.text)
        wrong = await client.post("/ui/w/w/u/alice/forget", data={"csrf": token, "confirm": "Alice"})
        assert wrong.status_code == 400 and (await app.memories.list(workspace_id="w")).total == 1
        done = await client.post("/ui/w/w/u/alice/forget", data={"csrf": token, "confirm": "alice"})
        assert done.status_code == 200 and "Erased 1 memories" in done.text
        assert (await app.memories.list(workspace_id="w")).total == 0

    _run(check)


def test_without_keys_the_sign_in_opens_every_workspace() -> None:
    async def check(client: httpx.AsyncClient, app: App) -> None:
        form = await client.get("/ui/signin")
        assert "no API keys" in form.text and "loopback" in form.text
        assert (await _sign_in(client, "")).status_code == 303
        assert (await client.get("/ui/w/anything")).status_code == 200
        home = await client.get("/ui/")
        assert 'name="workspace"' in home.text  # every workspace: one is named, not listed

    _run(check, server={})
