"""Issue 12: a superseded fact expires wherever its memory came from — the bundled sample, an imported file, a store
written before slots were stored — and however it names the user ("Alice Chen is …", "Alice and Sam moved …")."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from flowmem import App
from flowmem.schema.memory import Memory
from tests.unit.cli.test_cli import run_cli


def store_list(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, dict[str, Any]]:
    code, out, err = run_cli(capsys, "store", "list", "-w", "demo", "--json", "--limit", "0", *argv)
    assert code == 0, err
    return {m["memory_id"]: m for m in map(json.loads, out.splitlines())}


def history(capsys: pytest.CaptureFixture[str], memory_id: str) -> list[dict[str, Any]]:
    code, out, err = run_cli(capsys, "store", "history", "-w", "demo", memory_id, "--json")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_the_sample_home_is_superseded_by_a_move(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLOWMEM_HOME", str(tmp_path))
    assert run_cli(capsys, "store", "import", "--sample", "-w", "demo")[0] == 0
    before = store_list(capsys)
    assert before["alice-0055"]["metadata"]["slots"] == {"residence": "north berkeley"}  # "Alice and Sam moved into"
    assert before["alice-0001"]["metadata"]["slots"] == {"employer": "brightledger", "job_title": "product designer"}

    text = "We moved to Lisbon last week, we live in Alfama now"
    code, _, err = run_cli(capsys, "add", text, "-u", "alice", "-w", "demo", "--at", "2024-07-03T09:00")
    assert code == 0, err
    after = store_list(capsys)
    [lisbon] = [m for m in after.values() if m["content"] == text]
    berkeley = after["alice-0055"]
    assert lisbon["status"] == "valid" and berkeley["status"] == "expired"
    assert berkeley["metadata"]["superseded_by"] == lisbon["memory_id"]
    changed = [i for i, m in before.items() if after[i]["status"] != m["status"]]
    assert changed == ["alice-0055"]  # nothing else of Alice's (or Sam's) expired
    [expire] = [e for e in history(capsys, "alice-0055") if e["event"] == "expire"]
    assert expire["reason"] == f"residence: replaced by {lisbon['memory_id']} (north berkeley → alfama)"


def test_an_imported_memory_is_superseded_by_a_later_ingest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLOWMEM_HOME", str(tmp_path))
    lines = [
        {"memory_id": "bob-1", "workspace_id": "demo", "target": "bob_smith", "memory_type": "observation",
         "content": "Bob Smith is a nurse at St Mary's Hospital.", "created_at": "2024-01-02T10:00:00"},
        {"memory_id": "bob-2", "workspace_id": "demo", "target": "bob_smith", "memory_type": "observation",
         "content": "Bob's sister Ann works at Globex.", "created_at": "2024-01-02T10:05:00"},
    ]  # fmt: skip
    exported = tmp_path / "memories.jsonl"
    exported.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    code, _, err = run_cli(capsys, "store", "import", str(exported), "-w", "demo")
    assert code == 0, err
    imported = store_list(capsys)
    assert imported["bob-1"]["metadata"]["slots"] == {"employer": "st mary's hospital", "job_title": "nurse"}
    assert imported["bob-2"]["metadata"]["slots"] == {"employer@ann": "globex"}  # the sister's, not Bob's

    chat = tmp_path / "chat.jsonl"
    said = {"message_id": "m1", "role": "user", "name": "bob_smith", "time_created": "2024-03-01T09:00:00",
            "content": "Big news: I started a new job at Initech today, as a nurse again."}  # fmt: skip
    chat.write_text(json.dumps(said) + "\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "ingest", str(chat), "-u", "bob_smith", "-w", "demo")
    assert code == 0, err
    after = store_list(capsys)
    assert after["bob-1"]["status"] == "expired" and after["bob-2"]["status"] == "valid"
    [expire] = [e for e in history(capsys, "bob-1") if e["event"] == "expire"]
    assert "employer: replaced by" in expire["reason"] and "(st mary's hospital → initech)" in expire["reason"]


def test_a_store_written_before_slots_is_read_once_and_superseded(tmp_path: Path) -> None:
    old = datetime(2023, 5, 1, 12, 0)
    legacy = [
        Memory(memory_id="home", workspace_id="w", target="carol", memory_type="observation",
               content="Carol lives in Porto.", created_at=old, updated_at=old),
        Memory(memory_id="work", workspace_id="w", target="carol", memory_type="conversation",
               content="I work at Contoso.", created_at=old, updated_at=old),
        Memory(memory_id="hobby", workspace_id="w", target="carol", memory_type="observation",
               content="Carol plays the cello on Sundays.", created_at=old, updated_at=old),
    ]  # fmt: skip
    overrides = [f"vector_store.default.params.directory={tmp_path}", "embedding_model.default.backend=hash"]
    with App(overrides=overrides) as app:

        async def write_legacy() -> None:  # as a store from before slots were stored holds them: no metadata.slots
            vectors = await app.embedding_model().embed([m.content for m in legacy])
            stored = [m.model_copy(update={"vector": v}) for m, v in zip(legacy, vectors, strict=True)]
            await app.vector_store().write("w", stored)

        app.run_coroutine(write_legacy())
        app.memories.sync.add(
            text="I moved to Braga.", user_id="carol", workspace_id="w", timestamp=datetime(2024, 2, 1)
        )
        stored = {m.memory_id: m for m in app.memories.sync.list(workspace_id="w", user_id="carol").memories}
        events = app.run_coroutine(app.vector_store().history("w"))
        kept = app.run_coroutine(app.vector_store().get("w", ["hobby", "work"], with_vectors=True))
    vectors = {m.memory_id: m.vector for m in kept}
    assert stored["home"].status == "expired" and stored["work"].status == "valid"
    [braga] = [m for m in stored.values() if m.content == "I moved to Braga."]
    assert stored["home"].metadata["superseded_by"] == braga.memory_id
    # Read once: every memory looked through now carries its slots, written with the decision ...
    assert stored["work"].metadata["slots"] == {"employer": "contoso"}
    assert stored["hobby"].metadata["slots"] == {}
    assert stored["hobby"].updated_at == old  # its words and state did not change
    assert vectors["hobby"] is not None and vectors["hobby"].shape == vectors["work"].shape
    # ... and without history noise: the add and the expire only.
    assert sorted((e.event, e.memory_id) for e in events) == sorted([("add", braga.memory_id), ("expire", "home")])
