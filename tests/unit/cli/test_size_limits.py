"""Size limits (``limits`` in the config): a 5 MB query, message or memory is refused at once, never embedded."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from flowmem.app import App
from flowmem.config.schema import Limits
from flowmem.core.errors import InputError
from tests.unit.cli.test_cli import run_cli
from tests.unit.cli.test_jsonl_inputs import assert_user_error, memory, message, stored

FIVE_MB = ("Alice likes green tea and long walks. " * 140_000)[:5_000_000]
FAST = 5.0  # seconds; embedding 5 MB took 57 s with the hash model and never finished with e5


def test_the_defaults_are_documented_and_configurable() -> None:
    limits = Limits()
    assert (limits.query_max_chars, limits.message_max_chars, limits.memory_max_chars) == (4_000, 10_000, 10_000)
    with App(overrides=["limits.query_max_chars=10", "embedding_model.default.backend=hash"]) as app:
        assert app.config.limits.query_max_chars == 10


def test_a_5mb_query_is_refused_quickly(capsys: pytest.CaptureFixture[str], store: list[str]) -> None:
    start = time.monotonic()
    code, _, err = run_cli(capsys, "run", "personal_retrieve", "-q", FIVE_MB, "-u", "alice", *store)
    assert time.monotonic() - start < FAST
    assert_user_error(code, err, "input 'query' is 5,000,000 characters long; at most 4,000", "limits.query_max_chars")
    assert len(err) < 500  # the text is not echoed back


def test_a_query_over_a_configured_limit(capsys: pytest.CaptureFixture[str], store: list[str]) -> None:
    code, _, err = run_cli(capsys, "run", "set_query", "-q", "x" * 11, "limits.query_max_chars=10", *store)
    assert_user_error(code, err, "input 'query' is 11 characters long; at most 10")
    code, _, err = run_cli(capsys, "run", "set_query", "-q", "x" * 10, "limits.query_max_chars=10", *store)
    assert code == 0, err


def test_a_5mb_message_is_refused_quickly_in_ingest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str]
) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(message("Alice likes green tea") + message(FIVE_MB) + message("Alice hikes", "2024-05-05"))
    start = time.monotonic()
    code, _, err = run_cli(capsys, "ingest", str(path), "-u", "alice", *store)
    assert time.monotonic() - start < FAST
    assert_user_error(code, err, f"{path} line 2: content is 5,000,000 characters long; at most 10,000")
    assert "limits.message_max_chars" in err and len(err) < 500
    start = time.monotonic()
    code, _, err = run_cli(capsys, "ingest", str(path), "-u", "alice", "--skip-bad", *store)
    assert time.monotonic() - start < FAST
    assert code == 0, err
    assert "messages 2" in err and f"skipped 1 bad line: {path} line 2: content is 5,000,000 characters" in err


def test_a_5mb_message_input_is_refused_quickly(capsys: pytest.CaptureFixture[str], store: list[str]) -> None:
    messages = json.dumps([{"role": "user", "name": "alice", "content": FIVE_MB}])
    start = time.monotonic()
    code, _, err = run_cli(capsys, "run", "personal_summary", "-u", "alice", "--input", f"messages={messages}", *store)
    assert time.monotonic() - start < 2 * FAST  # YAML reads the 5 MB value first (~1 s per MB)
    assert_user_error(code, err, "input 'messages' [0] content is 5,000,000 characters long", "message_max_chars")


def test_a_5mb_memory_is_refused_quickly_in_import(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str]
) -> None:
    path = tmp_path / "memories.jsonl"
    path.write_bytes(memory("m1", "tea") + memory("m2", FIVE_MB) + memory("m3", "hikes"))
    for command in (["store", "import"], ["ingest", "--memories"]):
        start = time.monotonic()
        code, _, err = run_cli(capsys, *command, str(path), *store)
        assert time.monotonic() - start < FAST
        assert_user_error(code, err, f"{path} line 2: content is 5,000,000 characters long", "memory_max_chars")
    code, _, err = run_cli(capsys, "store", "import", str(path), "--skip-bad", *store)
    assert code == 0 and "skipped 1 bad line" in err
    assert sorted(m["memory_id"] for m in stored(capsys, store)) == ["m1", "m3"]


def test_the_python_api_refuses_too(store: list[str]) -> None:
    with App(overrides=store) as app:
        start = time.monotonic()
        with pytest.raises(InputError, match=r"limits\.query_max_chars"):
            app.run_sync("personal_retrieve", query=FIVE_MB, user_id="alice")
        messages = [{"role": "user", "name": "alice", "content": FIVE_MB}]
        with pytest.raises(InputError, match=r"limits\.message_max_chars"):
            app.run_sync("personal_summary", messages=messages, user_id="alice")
        assert time.monotonic() - start < FAST


def test_a_message_at_the_limit_is_ingested_quickly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str]
) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(message(FIVE_MB[: Limits().message_max_chars]))
    start = time.monotonic()
    code, _, err = run_cli(capsys, "ingest", str(path), "-u", "alice", *store)
    assert time.monotonic() - start < FAST
    assert code == 0 and "messages 1" in err
