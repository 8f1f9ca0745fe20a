"""The Swagger UI and ReDoc files behind ``/docs`` and ``/redoc`` are served with their licences: every licence file
each bundle names in its first line, Swagger UI's LICENSE and NOTICE, ReDoc's, and an index naming the bytes it was
checked against — so a ``fastapi-offline`` that ships other bundles fails here until the notices are updated."""

from __future__ import annotations

import asyncio
import hashlib
import re
from pathlib import Path

import fastapi_offline
import httpx

from flowmem.app import App
from flowmem.server.app import create_app
from flowmem.server.docs import ASSETS, LICENSES, NOTICES

CONFIG = {"embedding_model": {"default": {"backend": "hash"}}, "vector_store": {"default": {"backend": "memory"}}}
STATIC = Path(fastapi_offline.__file__).parent / "static"
BUNDLES = ["swagger-ui-bundle.js", "redoc.standalone.js"]


def _get(*paths: str) -> dict[str, httpx.Response]:
    async def main() -> dict[str, httpx.Response]:
        app = App(CONFIG)
        try:
            transport = httpx.ASGITransport(app=create_app(app))
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as http:
                return {path: await http.get(path) for path in paths}
        finally:
            await app.aclose()

    return asyncio.run(main())


def test_each_bundle_s_licence_file_is_served_where_its_first_line_points() -> None:
    named = {}
    for bundle in BUNDLES:
        first = (STATIC / bundle).read_text(encoding="utf-8").splitlines()[0]
        match = re.fullmatch(r"/\*! For license information please see (\S+) \*/", first)
        assert match, f"{bundle} starts {first[:100]!r}"
        named[bundle] = match[1]
    got = _get(*(f"{ASSETS}/{name}" for name in named.values()), f"{ASSETS}/swagger-ui.LICENSE",
               f"{ASSETS}/swagger-ui.NOTICE", f"{ASSETS}/redoc.LICENSE", NOTICES, "/openapi.json")  # fmt: skip
    for path, response in got.items():
        assert response.status_code == 200, path
    assert "Licensed under the MIT License" in got[f"{ASSETS}/{named['swagger-ui-bundle.js']}"].text
    assert "@license MIT" in got[f"{ASSETS}/{named['redoc.standalone.js']}"].text
    apache = got[f"{ASSETS}/swagger-ui.LICENSE"].text
    assert "Apache License" in apache and "Version 2.0, January 2004" in apache
    assert "SmartBear Software" in got[f"{ASSETS}/swagger-ui.NOTICE"].text
    assert "Rebilly, Inc." in got[f"{ASSETS}/redoc.LICENSE"].text
    assert NOTICES in got["/openapi.json"].json()["info"]["description"]  # the docs pages link to the notices


def test_the_notices_name_the_bytes_that_are_served_and_every_licence_file_they_list_ships() -> None:
    notices = (LICENSES / "THIRD-PARTY-NOTICES.md").read_text(encoding="utf-8")
    for asset in sorted(p.name for p in STATIC.iterdir()):
        digest = hashlib.sha256((STATIC / asset).read_bytes()).hexdigest()
        assert f"`{asset}` {digest}" in notices, f"{asset} is not the file the notices were checked against"
    listed = set(re.findall(r"`([\w.-]+\.(?:LICENSE|NOTICE|LICENSE\.txt))`", notices))
    assert listed and listed == {p.name for p in LICENSES.iterdir()} - {"THIRD-PARTY-NOTICES.md"}
