"""The OpenAPI document of ``flowmem serve`` (``/openapi.json``) without a server: what clients are generated from.

It is the same for every configuration (routes, bodies and response models are fixed; keys and stores change what
is allowed, not the shapes), so it is made here from an app on the in-memory store with the hash embedder.
``scripts/gen_ts_client.py`` writes it to ``clients/typescript/openapi.json``; the tests compare the committed copy
with this and with a real server's.
"""

from __future__ import annotations

import json
from typing import Any

from flowmem.app import App
from flowmem.server.app import create_app

_LIGHT = {"embedding_model": {"default": {"backend": "hash"}}, "vector_store": {"default": {"backend": "memory"}}}


def openapi_document() -> dict[str, Any]:
    """``/openapi.json`` as ``flowmem serve`` answers it."""
    with App(_LIGHT) as app:
        return create_app(app).openapi()


def openapi_text(document: dict[str, Any]) -> str:
    """The document as committed: indented, keys in FastAPI's order, one newline at the end."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
