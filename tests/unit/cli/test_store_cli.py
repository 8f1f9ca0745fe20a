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
    code, _, err = run_cli(capsys, "store", "import", str(source), "--keep-workspaces", *a)
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
    run_cli(capsys, "store", "import", str(write_jsonl(tmp_path / "in.jsonl", SAMPLE[:2])), "-w", "alice", *a)
    exported = tmp_path / "alice.jsonl"
    code, _, err = run_cli(capsys, "store", "export", "-w", "alice", "-o", str(exported), *a)
    assert code == 0 and "exported 2 memories" in err
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    assert all(len(line["vector"]) == 384 for line in lines)
    code, _, err = run_cli(
        capsys, "store", "import", str(exported), "-w", "alice-copy", "--from-workspace", "alice", *b
    )
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
    code, _, _ = run_cli(
        capsys, "store", "import", str(write_jsonl(tmp_path / "in.jsonl", SAMPLE)), "--keep-workspaces", *a
    )
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
    code, _, err = run_cli(capsys, "store", "import", str(bad), "-w", "alice", *a)
    assert code == 2
    assert f"{bad} line 3" in err and "Traceback" not in err
    code, out, _ = run_cli(capsys, "store", "stats", "--json", *a)
    assert json.loads(out)["workspaces"] == {}  # nothing written: the batch failed before its upsert
    code, _, err = run_cli(capsys, "store", "import", str(bad), "--skip-bad", "-w", "alice", *a)
    assert code == 0 and "imported 1 into 'alice'" in err


def test_unknown_store_entry(capsys: pytest.CaptureFixture[str], stores: tuple[list[str], list[str]]) -> None:
    code, _, err = run_cli(capsys, "store", "stats", "--store", "archive", *stores[0])
    assert code == 2 and "unknown vector_store entry 'archive'" in err


# -- import takes its workspace from the command, and records every replacement ---------------


def test_import_refuses_a_line_of_another_workspace(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, _ = stores
    source = write_jsonl(tmp_path / "in.jsonl", SAMPLE)  # lines 1-2 alice, line 3 bob
    code, _, err = run_cli(capsys, "store", "import", str(source), "-w", "alice", *a)
    assert code == 2 and "Traceback" not in err
    assert f"{source} line 3" in err and "names workspace 'bob'" in err and "'alice'" in err
    assert "-w bob" in err and "--from-workspace bob" in err and "--keep-workspaces" in err
    code, _, err = run_cli(capsys, "store", "import", str(source), *a)  # no -w: into 'default', not the file's
    assert code == 2 and f"{source} line 1" in err and "writes into 'default'" in err
    _, out, _ = run_cli(capsys, "store", "stats", "--json", *a)
    assert json.loads(out)["workspaces"] == {}  # nothing written into any workspace
    code, _, err = run_cli(capsys, "store", "import", str(source), "-w", "alice", "--keep-workspaces", *a)
    assert code == 2 and "drop -w alice" in err
    code, _, err = run_cli(capsys, "store", "import", str(source), "-w", "carol", "--from-workspace", "alice", *a)
    assert code == 2 and f"{source} line 3" in err  # alice's lines may move into carol, bob's may not
    code, _, err = run_cli(capsys, "store", "import", str(source), "-w", "bob", "--from-workspace", "alice", *a)
    assert code == 0 and "imported 3 into 'bob'" in err  # alice's moved, bob's own line stays


def test_empty_workspace_is_an_error_everywhere(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, _ = stores
    source = write_jsonl(tmp_path / "in.jsonl", SAMPLE[:2])
    for argv in (
        ("store", "import", str(source), "-w", ""),
        ("store", "import", str(source), "-w", "  "),
        ("store", "import", str(source), "-w", "x", "--from-workspace", ""),
        ("store", "list", "-w", ""),
        ("store", "stats", "-w", ""),
        ("store", "get", "-w", "", "m1"),
        ("store", "delete", "-w", "", "m1"),
        ("store", "history", "-w", ""),
        ("store", "export", "-w", ""),
        ("ingest", str(source), "--memories", "-w", ""),
        ("ingest", str(source), "-u", "alice", "-w", ""),
        ("run", "personal_retrieve", "-q", "tea", "-u", "alice", "-w", " "),
    ):
        code, _, err = run_cli(capsys, *argv, *a)
        assert code == 2, argv
        assert (
            ("is empty" in err or "is only spaces" in err) and "is not a workspace id" in err and "Traceback" not in err
        ), (argv, err)
    _, out, _ = run_cli(capsys, "store", "stats", "--json", *a)
    assert json.loads(out)["workspaces"] == {}


def test_import_replacing_a_memory_records_an_update(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, _ = stores
    first = write_jsonl(tmp_path / "first.jsonl", SAMPLE[:2])
    assert run_cli(capsys, "store", "import", str(first), "-w", "alice", *a)[0] == 0
    changed = [{**SAMPLE[1], "content": "Alice switched to coffee"}]
    code, _, err = run_cli(
        capsys, "store", "import", str(write_jsonl(tmp_path / "again.jsonl", changed)), "-w", "alice", *a
    )
    assert code == 0 and "imported 1 into 'alice' (1 replaced)" in err
    _, out, _ = run_cli(capsys, "store", "history", "-w", "alice", "m2", "--json", *a)
    events = [json.loads(line) for line in out.splitlines()]
    assert [e["event"] for e in events] == ["add", "update"]
    assert events[1]["old"]["content"] == "Alice prefers green tea"
    assert events[1]["new"]["content"] == "Alice switched to coffee"
    _, out, _ = run_cli(capsys, "store", "history", "-w", "alice", "m1", "--json", *a)
    assert [json.loads(line)["event"] for line in out.splitlines()] == ["add"]


def test_import_repeated_id_names_both_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, _ = stores
    source = write_jsonl(tmp_path / "twice.jsonl", [SAMPLE[0], SAMPLE[1], {**SAMPLE[0], "content": "other"}])
    code, _, err = run_cli(capsys, "store", "import", str(source), "-w", "alice", *a)
    assert code == 2 and f"{source} line 3" in err and "on line 1 too" in err


def test_ingest_memories_imports_as_store_import_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, _ = stores
    source = write_jsonl(tmp_path / "in.jsonl", SAMPLE)
    code, _, err = run_cli(capsys, "ingest", str(source), "--memories", "-w", "alice", *a)
    assert code == 2 and f"{source} line 3" in err and "names workspace 'bob'" in err
    first = write_jsonl(tmp_path / "first.jsonl", SAMPLE[:2])
    code, _, err = run_cli(capsys, "ingest", str(first), "--memories", "-w", "alice", *a)
    assert code == 0 and "add 2" in err
    changed = write_jsonl(tmp_path / "changed.jsonl", [{**SAMPLE[1], "content": "Alice switched to coffee"}])
    code, _, err = run_cli(capsys, "ingest", str(changed), "--memories", "-w", "alice", *a)
    assert code == 0 and "update 1" in err
    _, out, _ = run_cli(capsys, "store", "history", "-w", "alice", "m2", "--json", *a)
    assert [json.loads(line)["event"] for line in out.splitlines()] == ["add", "update"]
    code, _, err = run_cli(capsys, "ingest", str(source), "--memories", "--keep-workspaces", *a)
    assert code == 0
    _, out, _ = run_cli(capsys, "store", "stats", "--json", *a)
    assert json.loads(out)["workspaces"] == {"alice": 2, "bob": 1}


def test_quickstart_sample_import(capsys: pytest.CaptureFixture[str], stores: tuple[list[str], list[str]]) -> None:
    a, _ = stores
    code, _, err = run_cli(capsys, "store", "import", "--sample", "-w", "demo", *a)
    assert code == 0 and "imported 94 into 'demo'" in err
    code, _, err = run_cli(capsys, "store", "import", "--sample", "-w", "other", *a)
    assert code == 2 and "names workspace 'demo'" in err


def test_import_writes_memories_and_history_in_one_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flowmem.memories.importing import ImportTarget, import_memories
    from flowmem.schema.memory import Memory
    from flowmem.vector_store.local.store import LocalStore

    async def main() -> list[tuple[int, int]]:
        store = LocalStore(LocalStore.Params(directory=str(tmp_path)))  # type: ignore[arg-type]
        calls: list[tuple[int, int]] = []
        real_write = store.write

        async def write(workspace_id: str, memories: object = (), **kwargs: object) -> None:
            calls.append((len(memories), len(kwargs.get("history", ()))))  # type: ignore[arg-type]
            await real_write(workspace_id, memories, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(store, "write", write)
        monkeypatch.setattr(store, "upsert", None)  # an import that upserts apart from its history fails here
        records = [(i + 1, Memory.model_validate({**r, "workspace_id": "alice"})) for i, r in enumerate(SAMPLE[:2])]
        await import_memories(records, store, HashEmbedding(), ImportTarget("alice"))
        await import_memories(records[:1], store, HashEmbedding(), ImportTarget("alice"))
        await store.aclose()
        return calls

    assert asyncio.run(main()) == [(2, 2), (1, 1)]


# -- limits are checked, never a silent slice -----------------------------------------------------


def test_list_and_history_limits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, _ = stores
    assert (
        run_cli(capsys, "store", "import", str(write_jsonl(tmp_path / "in.jsonl", SAMPLE[:2])), "-w", "alice", *a)[0]
        == 0
    )
    for limit in ("-1", "-5"):
        code, out, err = run_cli(capsys, "store", "list", "-w", "alice", "--limit", limit, *a)
        assert code == 2 and out == "", limit
        assert f"--limit: must be 0 (all) or a positive number of memories, got {limit}" in err
    code, out, _ = run_cli(capsys, "store", "list", "-w", "alice", "--limit", "0", "--json", *a)
    assert code == 0 and [json.loads(line)["memory_id"] for line in out.splitlines()] == ["m2", "m1"]
    code, out, _ = run_cli(capsys, "store", "list", "-w", "alice", "--limit", "1", "--json", *a)
    assert [json.loads(line)["memory_id"] for line in out.splitlines()] == ["m2"]
    for limit in ("0", "-1"):
        code, _, err = run_cli(capsys, "store", "history", "-w", "alice", "--limit", limit, *a)
        assert code == 2 and f"must be a positive number of events (1 or more), got {limit}" in err
    code, out, _ = run_cli(capsys, "store", "history", "-w", "alice", "--limit", "1", "--json", *a)
    assert code == 0 and len(out.splitlines()) == 1


# -- stats -w shows one workspace and nothing of any other -----------------------------------------


def test_stats_with_workspace_shows_only_that_workspace(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stores: tuple[list[str], list[str]]
) -> None:
    a, _ = stores
    source = write_jsonl(tmp_path / "in.jsonl", SAMPLE)
    assert run_cli(capsys, "store", "import", str(source), "--keep-workspaces", *a)[0] == 0
    code, out, _ = run_cli(capsys, "store", "stats", "-w", "alice", "--json", *a)
    stats = json.loads(out)
    assert code == 0 and stats["workspace"] == "alice" and stats["memories"] == 2
    assert stats["backend"] == "local" and stats["dims"] == 384
    assert "bob" not in out and "workspaces" not in stats and "revision" not in stats
    code, out, _ = run_cli(capsys, "store", "stats", "-w", "alice", *a)
    assert code == 0 and "memories: 2" in out and "workspace: alice" in out
    assert "bob" not in out and "workspaces" not in out
    code, out, _ = run_cli(capsys, "store", "stats", "-w", "nobody", "--json", *a)
    assert json.loads(out)["memories"] == 0 and "alice" not in out and "bob" not in out
    code, out, _ = run_cli(capsys, "store", "stats", *a)  # no -w: the operator's view of every workspace
    assert code == 0 and "alice: 2 memories" in out and "bob: 1 memories" in out
