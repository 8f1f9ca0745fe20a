"""The TypeScript client (clients/typescript) under Node against a real ``flowmem serve``, and its freshness.

The package is copied to a temp dir (its ``node_modules`` linked: ``npm ci`` from the committed lockfile, which
scripts/test.sh runs) with the README's ``typescript`` block beside its own test (``test/e2e.ts``), and compiled by
``tsc``: compiling checks every field the two read against the generated types. Then both run under Node against a
server on a loopback port: add, search with explain, a chat turn, an update's history, forget, and the typed error
bodies of a 422, 400, 403, 401 and 404. Without node, npm or ``node_modules`` the tests skip locally and fail under
``CI=true``. The freshness test regenerates the client (scripts/gen_ts_client.py --check) and compares.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flowmem.testing.serve_process import ServeProcess

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clients" / "typescript"
KEYS = {"FLOWMEM_KEY_ALICE": "key-alice-0123456789abcdef", "FLOWMEM_KEY_B": "key-b-0123456789abcdef"}
CONFIG = """
embedding_model:
  default: {backend: hash}
server:
  api_keys:
    - {name: alice-app, key: "${FLOWMEM_KEY_ALICE}", workspaces: [alice, wa]}
    - {name: bob-app, key: "${FLOWMEM_KEY_B}", workspaces: [wb]}
"""
README_URL = "http://127.0.0.1:8765"  # what the README's example calls; the test's server is elsewhere


def _node() -> str:
    node = shutil.which("node")
    if node and shutil.which("npm") and (PACKAGE / "node_modules" / "typescript").is_dir():
        return node
    reason = "needs Node 20, npm and clients/typescript/node_modules (scripts/test.sh runs npm ci there)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true: {reason}")
    pytest.skip(reason)


def readme_example() -> str:
    blocks = re.findall(r"```typescript\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "README.md has one typescript block (this test runs it)"
    body: str = blocks[0]
    assert README_URL in body
    return body


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package, the README's example with it, compiled."""
    node = _node()
    copy = tmp_path_factory.mktemp("ts") / "typescript"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("node_modules", "dist"))
    (copy / "node_modules").symlink_to(PACKAGE / "node_modules")
    (copy / "test" / "readme_example.ts").write_text(readme_example(), encoding="utf-8")
    done = subprocess.run([node, "node_modules/typescript/bin/tsc", "-p", "tsconfig.json"], cwd=copy,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, f"tsc:\n{done.stdout}{done.stderr}"
    return copy


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    tmp = tmp_path_factory.mktemp("ts-serve")
    (tmp / "serve.yaml").write_text(CONFIG, encoding="utf-8")
    with ServeProcess(["-c", str(tmp / "serve.yaml")], home=tmp / "home", env=KEYS) as process:
        yield process


def _run(built: Path, script: str, server: ServeProcess) -> str:
    env = {**os.environ, "FLOWMEM_URL": server.url, "FLOWMEM_KEY": KEYS["FLOWMEM_KEY_ALICE"], **KEYS}
    done = subprocess.run([_node(), f"dist/test/{script}"], cwd=built, env=env, capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, f"node {script}:\n{done.stdout}{done.stderr}"
    return done.stdout


def test_the_client_against_a_real_server(built: Path, server: ServeProcess) -> None:
    seen: dict[str, Any] = json.loads(_run(built, "e2e.js", server))
    assert seen["added"]["actions"] == ["add"]
    search = seen["search"]
    assert search["contents"][0] == "I moved to Turin in March"
    assert all(isinstance(score, float | int) for score in search["final"]) and search["final"]
    assert "fuse_rerank_op" in search["spans"]  # explain: the retrieval flow's trace, typed
    context = seen["context"]
    assert context["window"] == ["where do I live?"] and "user" in context["roles"]
    assert "I moved to Turin in March" in context["recalled"]
    assert seen["history"] == [
        ["add", None, "I moved to Turin in March"],
        ["update", "I moved to Turin in March", "I moved to Turin in April"],
    ]
    assert seen["errors"] == {
        "top_k_0": {"status": 422, "type": "invalid_request", "where": ["body.top_k"]},
        "empty_text": {"status": 400, "type": "invalid_input", "where": ["text"]},
        "other_workspace": {"status": 403, "type": "forbidden", "where": [""]},
        "no_key": {"status": 401, "type": "unauthorized", "where": [""]},
        "thrown_not_found": {"status": 404, "type": "not_found", "where": [""]},
    }
    forget = seen["forget"]
    assert forget["dry_run"] == forget["erased"] == 1 and forget["sessions"] == 1 and forget["left"] == 0


def test_the_readme_example_runs(built: Path, server: ServeProcess) -> None:
    compiled = built / "dist" / "test" / "readme_example.js"
    compiled.write_text(compiled.read_text(encoding="utf-8").replace(README_URL, server.url), encoding="utf-8")
    printed = _run(built, "readme_example.js", server)
    assert "I moved to Turin in March" in printed
    assert printed.rstrip().endswith("422 invalid_request body.top_k")


def test_the_served_document_is_the_committed_one(server: ServeProcess) -> None:
    served = httpx.get(f"{server.url}/openapi.json", timeout=30).json()
    assert served == json.loads((PACKAGE / "openapi.json").read_text(encoding="utf-8"))


def test_the_committed_client_is_current() -> None:
    _node()
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_ts_client.py"), "--check"],
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
