"""JSONL files and ``--input`` values that once ended in a traceback: each is now read, or refused in one message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flowmem.schema.memory import Memory, Message
from tests.unit.cli.test_cli import run_cli

BIG_INT = "9" * 5000


def message(content: str, when: object = "2024-05-04T10:00:00", **extra: object) -> bytes:
    record = {"role": "user", "name": "alice", "content": content, "time_created": when, **extra}
    return json.dumps(record, ensure_ascii=False).encode() + b"\n"


def memory(memory_id: str, content: str, **extra: object) -> bytes:
    record = {"memory_id": memory_id, "workspace_id": "default", "target": "alice", "content": content, **extra}
    return json.dumps(record, ensure_ascii=False).encode() + b"\n"


def assert_user_error(code: int, err: str, *fragments: str) -> None:
    assert code == 2, err
    assert err.startswith("flowmem: error: ") and err.count("flowmem: error:") == 1, err
    assert "Traceback" not in err and "internal error" not in err
    for fragment in fragments:
        assert fragment in err, err


def stored(capsys: pytest.CaptureFixture[str], store: list[str]) -> list[dict[str, object]]:
    code, out, err = run_cli(capsys, "store", "list", "-w", "default", "--json", "--limit", "0", *store)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


# -- --input values ----------------------------------------------------------------------------


def test_an_invalid_date_input_is_one_message(capsys: pytest.CaptureFixture[str], store: list[str]) -> None:
    code, _, err = run_cli(
        capsys, "run", "personal_retrieve", "-q", "hi", "-u", "a", "--input", "timestamp=2024-13-45", *store
    )
    assert_user_error(code, err, "input 'timestamp'", "2024-13-45")


@pytest.mark.parametrize("key", ["top_k", "timestamp"])
def test_a_huge_integer_input_is_one_short_message(
    capsys: pytest.CaptureFixture[str], store: list[str], key: str
) -> None:
    code, _, err = run_cli(capsys, "run", "set_query", "-q", "hi", "--input", f"{key}={BIG_INT}", *store)
    assert_user_error(code, err, f"input '{key}'")
    assert len(err) < 600  # the 5,000 digits are not echoed back


def test_an_aware_timestamp_input_is_wall_clock(capsys: pytest.CaptureFixture[str], store: list[str]) -> None:
    code, out, err = run_cli(
        capsys, "run", "set_query", "-q", "hi", "--input", "timestamp=2024-05-04T10:00:00+02:00", "--json", *store
    )
    assert code == 0, err
    assert json.loads(out)["outputs"]["timestamp"] == "2024-05-04T10:00:00"


# -- bytes that are not UTF-8 ------------------------------------------------------------------


def test_invalid_utf8_stops_ingest_at_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str]
) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(message("I like tea") + message("bad X").replace(b"X", b"\xff") + message("ok"))
    code, _, err = run_cli(capsys, "ingest", str(path), "-u", "alice", *store)
    assert_user_error(code, err, f"{path} line 2: is not UTF-8 text (byte 0xff", "save the file as UTF-8")


def test_invalid_utf8_is_skipped_and_reported_with_skip_bad(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str]
) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(
        message("Alice likes green tea") + b'{"content": "caf\xe9"}\n' + message("Alice hikes", "2024-05-05")
    )
    code, _, err = run_cli(capsys, "ingest", str(path), "-u", "alice", "--skip-bad", *store)
    assert code == 0, err
    assert "messages 2" in err
    assert f"skipped 1 bad line: {path} line 2: is not UTF-8 text" in err


def test_invalid_utf8_in_store_import(capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str]) -> None:
    path = tmp_path / "memories.jsonl"
    path.write_bytes(memory("m1", "tea") + memory("m2", "x").replace(b'"x"', b'"\xc3\x28"') + memory("m3", "hikes"))
    code, _, err = run_cli(capsys, "store", "import", str(path), *store)
    assert_user_error(code, err, f"{path} line 2: is not UTF-8 text")
    code, _, err = run_cli(capsys, "store", "import", str(path), "--skip-bad", *store)
    assert code == 0, err
    assert "imported 2 into 'default'" in err and "skipped 1 bad line" in err
    assert sorted(m["memory_id"] for m in stored(capsys, store)) == ["m1", "m3"]


# -- a byte order mark --------------------------------------------------------------------------


def test_a_utf8_bom_is_accepted(capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str]) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + message("Alice likes green tea") + message("Alice hikes", "2024-05-05"))
    code, _, err = run_cli(capsys, "ingest", str(path), "-u", "alice", "--skip-bad", *store)
    assert code == 0, err
    assert "messages 2" in err and "bad line" not in err
    memories = tmp_path / "memories.jsonl"
    memories.write_bytes(b"\xef\xbb\xbf" + memory("m1", "tea") + b"\xef\xbb\xbf" + memory("m2", "hikes"))  # `cat a b`
    code, _, err = run_cli(capsys, "store", "import", str(memories), *store)
    assert code == 0, err
    assert "imported 2 into 'default'" in err


# -- time zones -----------------------------------------------------------------------------------


def test_aware_epoch_and_naive_times_mix(capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str]) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(
        message("Alice went to Paris", "2024-05-04T12:00:00Z")
        + message("Alice likes green tea", "2024-05-04T11:00:00")
        + message("Alice hiked in the Alps", 1714820400)  # 2024-05-04T11:00:00Z
        + message("Alice plays chess", "2024-05-04T10:00:00+02:00")
    )
    code, _, err = run_cli(capsys, "ingest", str(path), "-u", "alice", *store)
    assert code == 0, err
    assert "messages 4" in err


@pytest.mark.parametrize(
    ("value", "wall_clock"),
    [
        ("2024-05-04T10:00:00+02:00", "2024-05-04T10:00:00"),  # the offset's own clock
        ("2024-05-04T10:00:00Z", "2024-05-04T10:00:00"),
        (1714816800, "2024-05-04T10:00:00"),  # epoch seconds are UTC
        ("2024-05-04T10:00:00", "2024-05-04T10:00:00"),
    ],
)
def test_every_time_is_kept_as_naive_wall_clock(value: object, wall_clock: str) -> None:
    parsed = Message.model_validate_json(json.dumps({"content": "x", "time_created": value}))
    assert parsed.time_created.tzinfo is None and parsed.time_created.isoformat() == wall_clock
    mem = Memory.model_validate_json(json.dumps({"workspace_id": "w", "content": "x", "created_at": value}))
    assert mem.created_at.tzinfo is None and mem.created_at.isoformat() == wall_clock


# -- numbers too large ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ({"vector": [10**400, 1.0]}, "vector: Value error, a vector is a non-empty 1-d sequence of numbers"),
        ({"msg_year": 10**4000}, "msg_year: Input should be less than or equal to 9999"),
        ({"event_hour": 2**40}, "event_hour: Input should be less than or equal to 23"),
        ({"vector": [1e39, 1.0]}, "a vector's numbers must be finite"),
    ],
)
def test_numbers_out_of_range_in_memories(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str], extra: dict[str, object], fragment: str
) -> None:
    path = tmp_path / "memories.jsonl"
    path.write_bytes(memory("m1", "tea", **extra))
    code, _, err = run_cli(capsys, "store", "import", str(path), *store)
    assert_user_error(code, err, f"{path} line 1", fragment)


def test_integers_over_4300_digits_in_jsonl(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, store: list[str]
) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(message("Alice likes tea").replace(b'"role"', f'"metadata": {{"n": {BIG_INT}}}, "role"'.encode()))
    code, _, err = run_cli(capsys, "ingest", str(path), "-u", "alice", *store)
    assert_user_error(code, err, f"{path} line 1", "integers have at most 4,300 digits; write a longer one as a string")
    assert len(err) < 600
    code, _, err = run_cli(capsys, "ingest", str(path), "-u", "alice", "--skip-bad", *store)
    assert code == 0 and "skipped 1 bad line" in err
