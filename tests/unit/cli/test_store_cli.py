"""`flowmem store …` on the embedded store: inspect, delete, export and import (JSONL round trip)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from flowmem.embedding.hash import HashEmbedding
from tests.unit.cli.test_cli import run_cli


@pytest.fixture
def stores(tmp_path: Path) -> tuple[list[str], list[str]]:
    def overrides(name: str) -> list[str]:
        return [
            "vector_store.default.backend=local",
            f"vector_store.default.params.directory={tmp_path / name}",
            "embedding_model.default.backend=hash",
        ]

    return overrides("a"), overrides("b")


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


SAMPLE = [
    {"memory_id": "m1", "workspace_id": "alice", "target": "alice", "content": "Alice hiked in the Alps on Saturday",
     "created_at": "2024-05-04T10:00:00", "memory_type": "observation"},
    {"memory_id": "m2", "workspace_id": "alice", "target": "alice", "content": "Alice prefers green tea",
     "created_at": "2024-05-01T09:00:00", "memory_type": "insight"},
    {"memory_id": "m3", "workspace_id": "bob", "target": "bob", "content": "鲍勃在学习 Rust 编程",
     "created_at": "2024-05-02T09:00:00"},
]  # fmt: skip


def test_import_stats_list_get_delete(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, _ = stores
    source = write_jsonl(tmp_path / "in.jsonl", SAMPLE)
    code, _, err = run_cli(capsys, "store", "import", str(source), *a)
    assert code == 0
    assert "imported 2 into 'alice', 1 into 'bob'" in err
    code, out, _ = run_cli(capsys, "store", "stats", "--json", *a)
    stats = json.loads(out)
    assert stats["workspaces"] == {"alice": 2, "bob": 1} and stats["dims"] == 384
    code, out, _ = run_cli(capsys, "store", "list", "-w", "alice", *a)
    assert out.index("green tea") < out.index("Alps")  # oldest first
    code, out, _ = run_cli(capsys, "store", "list", "-w", "alice", "--type", "insight", "--json", *a)
    assert [json.loads(line)["memory_id"] for line in out.splitlines()] == ["m2"]
    code, out, _ = run_cli(capsys, "store", "get", "-w", "bob", "m3", *a)
    assert json.loads(out)["content"] == "鲍勃在学习 Rust 编程"
    code, _, err = run_cli(capsys, "store", "get", "-w", "bob", "m1", *a)  # alice's id, asked from bob's scope
    assert code == 2 and "no memory with id m1" in err
    code, out, _ = run_cli(capsys, "store", "delete", "-w", "alice", "m1", "m3", *a)
    assert "deleted 1 of 2" in out


def test_export_import_round_trip_between_stores(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, b = stores
    run_cli(capsys, "store", "import", str(write_jsonl(tmp_path / "in.jsonl", SAMPLE)), *a)
    exported = tmp_path / "alice.jsonl"
    code, _, err = run_cli(capsys, "store", "export", "-w", "alice", "-o", str(exported), *a)
    assert code == 0 and "exported 2 memories" in err
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    assert all(len(line["vector"]) == 384 for line in lines)
    code, _, err = run_cli(capsys, "store", "import", str(exported), "-w", "alice-copy", *b)
    assert code == 0 and "imported 2 into 'alice-copy'" in err
    code, out, _ = run_cli(capsys, "store", "export", "-w", "alice-copy", *b)
    copied = [json.loads(line) for line in out.splitlines()]
    for original, copy in zip(lines, copied, strict=True):
        assert copy.pop("workspace_id") == "alice-copy"
        original.pop("workspace_id")
        assert copy.pop("vector") == pytest.approx(original.pop("vector"), abs=1e-6)
        assert copy == original


def test_import_without_vectors_embeds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, _ = stores
    code, _, _ = run_cli(capsys, "store", "import", str(write_jsonl(tmp_path / "in.jsonl", SAMPLE)), *a)
    assert code == 0
    _, out, _ = run_cli(capsys, "store", "export", "-w", "alice", *a)
    vectors = {json.loads(line)["memory_id"]: json.loads(line)["vector"] for line in out.splitlines()}
    expected = asyncio.run(HashEmbedding().embed([SAMPLE[0]["content"]]))[0]  # type: ignore[list-item]
    assert vectors["m1"] == pytest.approx(expected.tolist(), abs=1e-6)
    _, out, _ = run_cli(capsys, "store", "export", "-w", "alice", "--no-vectors", *a)
    assert all("vector" not in json.loads(line) for line in out.splitlines())


def test_bad_lines_name_the_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, _ = stores
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(SAMPLE[0]) + "\n\n{not json\n" + json.dumps({"workspace_id": "x"}) + "\n")
    code, _, err = run_cli(capsys, "store", "import", str(bad), *a)
    assert code == 2
    assert f"{bad} line 3" in err and "Traceback" not in err
    code, out, _ = run_cli(capsys, "store", "stats", "--json", *a)
    assert json.loads(out)["workspaces"] == {}  # nothing written: the batch failed before its upsert
    code, _, err = run_cli(capsys, "store", "import", str(bad), "--skip-bad", *a)
    assert code == 0 and "imported 1 into 'alice'" in err


def test_unknown_store_entry(capsys: pytest.CaptureFixture[str], stores: tuple[list[str], list[str]]) -> None:
    code, _, err = run_cli(capsys, "store", "stats", "--store", "archive", *stores[0])
    assert code == 2 and "unknown vector_store entry 'archive'" in err
