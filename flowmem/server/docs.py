"""``/docs`` (Swagger UI) and ``/redoc`` (ReDoc) served whole by flowmem, so they work on a machine offline.

FastAPI's own pages load their scripts and styles from a CDN (jsDelivr): offline, flowmem's home ground, they
were blank. The assets come from the ``fastapi-offline`` package (MIT), which ships Swagger UI's bundle and
stylesheet (Apache-2.0) and ReDoc's standalone bundle (MIT) as files; flowmem serves them under
:data:`ASSETS` with FastAPI's own page templates, and loads no web fonts (ReDoc's Google Fonts link is left out).

Their licences travel with them: ``fastapi-offline`` ships the bundles without the licence files they name in their
first line (``/*! For license information please see swagger-ui-bundle.js.LICENSE.txt */``), so flowmem ships those,
Swagger UI's ``LICENSE`` and ``NOTICE``, ReDoc's, FastAPI's and fastapi-offline's in ``docs_licenses/`` (from the
npm packages of the same versions, whose bundles are byte for byte these) and serves them beside the bundles under
:data:`ASSETS`, where the bundles' references find them; ``THIRD-PARTY-NOTICES.md`` there says which is which.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs-assets"
FAVICON = f"{ASSETS}/favicon.png"
_FILES = Path(fastapi_offline.__file__).parent / "static"
LICENSES = Path(__file__).parent / "docs_licenses"  # the assets' licences and notices, served beside them
NOTICES = f"{ASSETS}/THIRD-PARTY-NOTICES.md"


def add_offline_docs(api: FastAPI) -> None:
    """Serve ``/docs`` and ``/redoc`` of ``api`` (made with ``docs_url=None, redoc_url=None``) from local assets."""
    assets = StaticFiles(directory=_FILES, packages=[("flowmem.server", "docs_licenses")])  # the bundles, licences
    api.mount(ASSETS, assets, name="docs-assets")
    openapi, oauth2_redirect = api.openapi_url or "/openapi.json", api.swagger_ui_oauth2_redirect_url

    @api.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        at = _under(request)
        return get_swagger_ui_html(
            openapi_url=at(openapi), title=f"{api.title} - Swagger UI", oauth2_redirect_url=oauth2_redirect,
            swagger_js_url=at(f"{ASSETS}/swagger-ui-bundle.js"), swagger_css_url=at(f"{ASSETS}/swagger-ui.css"),
            swagger_favicon_url=at(FAVICON), swagger_ui_parameters=api.swagger_ui_parameters,
        )  # fmt: skip

    if oauth2_redirect:

        @api.get(oauth2_redirect, include_in_schema=False)
        async def swagger_ui_redirect() -> HTMLResponse:
            return get_swagger_ui_oauth2_redirect_html()

    @api.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        at = _under(request)
        return get_redoc_html(
            openapi_url=at(openapi), title=f"{api.title} - ReDoc", redoc_js_url=at(f"{ASSETS}/redoc.standalone.js"),
            redoc_favicon_url=at(FAVICON), with_google_fonts=False,
        )  # fmt: skip


def _under(request: Request) -> Callable[[str], str]:
    """A path of this server as the browser must ask for it (below a proxy's root path, if any)."""
    root = request.scope.get("root_path", "")
    return lambda path: f"{root}{path}"
