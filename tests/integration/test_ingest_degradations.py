"""`flowmem ingest` against a real OpenAI-compatible server that refuses the API key (llama.cpp with --api-key).

The issue this guards: with the LLM's key refused, ingest printed only the counts. Now every degradation
is said with its count and first reason, and ``--strict`` makes it exit 1 without writing the batch.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from flowmem.testing.servers import LocalServer, smollm2_chat_server
from tests.integration.test_openai_compatible import _start
from tests.unit.cli.test_cli import flowmem


@pytest.fixture(scope="module")
def locked_server() -> Iterator[LocalServer]:
    server = _start(lambda: smollm2_chat_server(api_key="the-right-key"), "CHAT")
    yield server
    server.stop()


def test_a_refused_key_is_said_and_strict_exits_1(locked_server: LocalServer, tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    lines = [
        {"message_id": f"m{i}", "role": "user", "name": "alice", "content": text, "time_created": f"2025-03-2{i}T10:00"}
        for i, text in enumerate(["I live in Milan.", "My dog is called Rex.", "I work at Acme as a nurse."])
    ]
    chat.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    config = [
        "llm.default.backend=openai_compatible",
        f"llm.default.params.base_url={locked_server.base_url}",
        f"llm.default.params.model={locked_server.model}",
        "llm.default.params.api_key=a-wrong-key",
        "llm.default.params.max_retries=0",
        "embedding_model.default.backend=hash",
        "vector_store.default.backend=local",
        f"vector_store.default.params.directory={tmp_path / 'store'}",
    ]

    strict = flowmem("ingest", str(chat), "-u", "alice", "--strict", "--batch", "2", *config)
    assert strict.returncode == 1, strict.stderr
    error = strict.stderr.strip().splitlines()[-1]
    assert error.startswith("flowmem: error: strict: stopped at messages 1-2 of 3, not written: info_filter_op: ")
    assert "LLM call failed" in error and "refused the API key" in error and "401" in error, error
    assert "nothing was written" in error and "a-wrong-key" not in error
    listed = flowmem("store", "list", "--json", *config[-3:])
    assert listed.returncode == 0 and listed.stdout.strip() == "", listed.stdout

    done = flowmem("ingest", str(chat), "-u", "alice", "--batch", "2", *config)
    assert done.returncode == 0, done.stderr
    said = done.stderr.strip().splitlines()
    assert said[-3] == "add 3, messages 3, messages already memorized 0"  # the offline rules did the work
    assert said[-2].startswith("warning: degraded: info_filter_op: 2 LLM calls failed: BackendUnavailableError: ")
    assert "refused the API key" in said[-2] and "Invalid API Key" in said[-2]
    assert said[-2].endswith("; scores the messages with the offline heuristics")
    assert said[-1].startswith("warning: degraded: get_observation_op: 2 LLM calls failed: ")
    assert said[-1].endswith("; keeps the messages as conversation memories in the user's own words")
