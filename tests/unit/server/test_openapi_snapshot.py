"""The committed OpenAPI document of the TypeScript client is the server's (no Node needed: this fails first).

After a change to a route, a body or a response model, run ``scripts/gen_ts_client.py`` and commit
clients/typescript (tests/integration/test_ts_client.py also checks the generated types against it).
"""

from __future__ import annotations

from pathlib import Path

from flowmem.server.openapi import openapi_document, openapi_text

COMMITTED = Path(__file__).resolve().parents[3] / "clients" / "typescript" / "openapi.json"


def test_the_committed_openapi_document_is_current() -> None:
    committed = COMMITTED.read_text(encoding="utf-8")
    assert committed == openapi_text(openapi_document()), "stale: run scripts/gen_ts_client.py and commit it"


def test_every_v1_answer_is_typed() -> None:
    for path, operations in openapi_document()["paths"].items():
        for method, operation in operations.items():
            for status, answer in operation["responses"].items():
                schema = answer["content"]["application/json"]["schema"]
                assert "$ref" in schema, f"{method.upper()} {path} {status}: {schema}"
