"""flowmem's dependencies: the backends' client packages are ordinary dependencies, imported only when used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flowmem.llm import openai_client
from flowmem.vector_store.elasticsearch import store as elasticsearch

REPO = Path(__file__).resolve().parents[2]
CLIENT_PACKAGES = ("openai", "elasticsearch", "elastic_transport", "aiohttp", "orjson")


def _dependencies() -> list[str]:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [str(requirement).replace(" ", "") for requirement in project["dependencies"]]


def test_the_backend_clients_are_dependencies_not_extras() -> None:
    dependencies = _dependencies()
    assert "openai>=1.40" in dependencies
    assert "elasticsearch[async]>=8.19,<10" in dependencies
    # and each install hint asks for exactly what pyproject requires
    assert "pip install 'openai>=1.40'" in openai_client.INSTALL_HINT
    assert "pip install 'elasticsearch[async]>=8.19,<10'" in elasticsearch.INSTALL_HINT


def test_importing_the_cli_imports_no_backend_client() -> None:
    code = (
        "import sys, flowmem.cli.main\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({CLIENT_PACKAGES!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


def test_the_server_gets_uvicorns_fast_loop_and_http_parser() -> None:
    # uvicorn[standard] brings uvloop and httptools (less event-loop CPU per request under load, issue 13).
    assert "uvicorn[standard]>=0.30" in _dependencies()
