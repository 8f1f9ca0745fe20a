"""Fixtures for tests against real servers.

``es_url``: one Elasticsearch node per test session. ``FLOWMEM_ES_URL`` names one to use;
otherwise ``scripts/elasticsearch_node.py`` starts a throwaway node (in its own directory, so
concurrent sessions never share or stop each other's node) and stops it when the session ends.
Without a node the Elasticsearch tests are skipped with the reason, or fail when ``CI=true``:
CI must never pass by skipping them. The summary names the server that was tested.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

REPO = Path(__file__).resolve().parents[2]
NODE_SCRIPT = REPO / "scripts" / "elasticsearch_node.py"
# Seconds to wait for a FLOWMEM_ES_URL node to become healthy (it may still be booting, e.g. a CI service).
HEALTH_TIMEOUT = float(os.environ.get("FLOWMEM_ES_WAIT", "60"))

_tested: list[str] = []  # "Elasticsearch 9.2.0 at http://… (…), Python client elasticsearch 9.x", for the summary


def _get(url: str, timeout: float = 10.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.load(response)


def _healthy_version(url: str, timeout: float) -> str:
    """The server's version once it reports yellow or green health; raises with the last reason on timeout."""
    deadline, reason = time.monotonic() + timeout, "no answer"
    while True:
        try:
            health = _get(f"{url}/_cluster/health?wait_for_status=yellow&timeout=5s")
            if health.get("status") in ("yellow", "green"):
                nodes = _get(f"{url}/_nodes/_local?filter_path=nodes.*.version")["nodes"]
                return str(next(iter(nodes.values()))["version"])
            reason = f"cluster health is {health.get('status')}"
        except (OSError, ValueError, KeyError) as exc:
            reason = str(exc)
        if time.monotonic() > deadline:
            raise RuntimeError(f"Elasticsearch at {url} is not healthy after {timeout:g} s: {reason}")
        time.sleep(1.0)


def _client() -> str:
    """The Python client these tests use: each server major wants its own (see scripts/test.sh)."""
    try:
        from elasticsearch import __versionstr__
    except ImportError:
        return "no Python client"
    return f"Python client elasticsearch {__versionstr__}"


def _no_node(reason: str) -> NoReturn:
    message = f"NO ELASTICSEARCH NODE: {reason}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message} (CI=true: the Elasticsearch tests must run, not be skipped)", pytrace=False)
    pytest.skip(f"{message}. Set FLOWMEM_ES_URL or make `scripts/elasticsearch_node.py start` work (Java, Maven).")


def _node_script(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(NODE_SCRIPT), *args], capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="session")
def es_url() -> Iterator[str]:
    """The URL of a healthy Elasticsearch node for this session."""
    given = os.environ.get("FLOWMEM_ES_URL", "").strip().rstrip("/")
    if given:
        try:
            version = _healthy_version(given, HEALTH_TIMEOUT)
        except RuntimeError as exc:
            _no_node(f"FLOWMEM_ES_URL={given}: {exc}")
        _tested.append(f"Elasticsearch {version} at {given} (FLOWMEM_ES_URL), {_client()}")
        yield given
        return
    home = Path(tempfile.mkdtemp(prefix="flowmem-es-test-"))
    try:
        started = _node_script("start", "--port", "0", "--home", str(home), timeout=300)
    except subprocess.TimeoutExpired:
        started = subprocess.CompletedProcess([], 1, "", "timed out after 300 s")
    try:
        if started.returncode != 0:
            _no_node(f"scripts/elasticsearch_node.py start failed: {started.stderr.strip()[-1500:]}")
        info = json.loads(started.stdout.strip().splitlines()[-1])
        try:
            version = _healthy_version(info["url"], HEALTH_TIMEOUT)
        except RuntimeError as exc:
            _no_node(str(exc))
        _tested.append(
            f"Elasticsearch {version} at {info['url']} (started by scripts/elasticsearch_node.py), {_client()}"
        )
        yield info["url"]
    finally:
        _node_script("stop", "--port", "0", "--home", str(home), timeout=120)
        shutil.rmtree(home, ignore_errors=True)


class ClientRequests(logging.Handler):
    """The Elasticsearch client's own log: one line per request, with its status (``METHOD url [status:N …]``)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def requests() -> Iterator[ClientRequests]:
    """Every request the Elasticsearch client sends during the test, as logged by ``elastic_transport``."""
    handler, client_log = ClientRequests(), logging.getLogger("elastic_transport.transport")
    level = client_log.level
    client_log.setLevel(logging.INFO)
    client_log.addHandler(handler)
    yield handler
    client_log.removeHandler(handler)
    client_log.setLevel(level)


# Switching an index's scheduled refresh off (refresh_interval -1) does not stop a refresh the old 1 s schedule
# already queued: it can still fire once, making a write searchable that a test expects not to be (seen in about
# 1 run in 4 of the bulk-load test). Tests that switch it off wait this long before writing.
SCHEDULED_REFRESH_GONE = 1.1


def delete_store_indices(url: str, index: str) -> None:
    """Delete a store's memories index and every side index named from it (history, ledger, sessions, fences)."""
    from flowmem.vector_store.elasticsearch.store import SIDE_SUFFIXES

    for suffix in ("", *SIDE_SUFFIXES):
        delete_index(url, index + suffix)


def delete_index(url: str, index: str) -> None:
    """Delete one index by its exact name (wildcards are refused by the server); a missing one is fine."""
    request = urllib.request.Request(f"{url}/{index}", method="DELETE")
    try:
        with urllib.request.urlopen(request, timeout=30):
            pass
    except urllib.error.HTTPError as exc:
        if exc.code != 404:
            raise


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in _tested:
        terminalreporter.write_sep("-", f"tested against {line}")
