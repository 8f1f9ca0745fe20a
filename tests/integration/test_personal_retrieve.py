"""personal_retrieve end to end on the embedded default (local store, offline e5 embeddings, no LLM),
with the bundled sample — the README's quick start, and the overrides users tune it with."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flowmem import App
from flowmem.eval.samples import DEMO_NOW
from flowmem.schema.memory import Memory

REPO = Path(__file__).resolve().parents[2]
WEEKEND_MEMORIES = {"alice-0070", "alice-0072", "alice-0082", "alice-0083", "alice-0084"}
QUESTION = "what did I do last weekend?"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("flowmem-home")
    previous = os.environ.get("FLOWMEM_HOME")
    os.environ["FLOWMEM_HOME"] = str(path)
    result = subprocess.run(
        [sys.executable, "-m", "flowmem", "store", "import", "--sample", "-w", "demo"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "imported 94 into 'demo'" in result.stderr
    yield path
    if previous is None:
        os.environ.pop("FLOWMEM_HOME", None)
    else:
        os.environ["FLOWMEM_HOME"] = previous


def ask(home: Path, *overrides: str, query: str = QUESTION) -> list[Memory]:
    with App(overrides=list(overrides)) as app:
        response = app.run_sync("personal_retrieve", query=query, user_id="alice", workspace_id="demo",
                                timestamp=DEMO_NOW)  # fmt: skip
    return [m for m in response.memories if isinstance(m, Memory)]


def test_last_weekend_puts_the_weekend_first(home: Path) -> None:
    memories = ask(home)
    assert memories[0].memory_id in WEEKEND_MEMORIES
    assert sum(m.memory_id in WEEKEND_MEMORIES for m in memories[:3]) == 3
    for memory in memories:
        # Every stage of the shipped flow that scored it: vector recall, the joined recall, rank, type and time.
        stages = {"cosine", "recall", "rank", "type_ratio", "type_shift", "time_match", "time_ratio", "final"}
        assert stages <= set(memory.scores)
        assert memory.score_sources["cosine"] == "retrieve_memory_op"
        assert memory.score_sources["recall"] == "recall_fuse_op"
        assert memory.score_sources["rank"] == "semantic_rank_op"
        assert memory.score_sources["final"] == "fuse_rerank_op"


def test_time_ratio_1_removes_the_boost(home: Path) -> None:
    boosted = ask(home)
    flat = ask(home, "op.fuse_rerank_op.params.fuse_time_ratio=1")
    assert all(m.scores["time_ratio"] == 1.0 for m in flat)
    assert [m.memory_id for m in flat] != [m.memory_id for m in boosted]
    assert flat[0].memory_id not in WEEKEND_MEMORIES


def test_top_k_1_changes_the_output(home: Path) -> None:
    default = ask(home, "op.retrieve_memory_op.params.time_recall_k=0")
    one = ask(home, "op.retrieve_memory_op.params.time_recall_k=0", "op.retrieve_memory_op.params.top_k=1")
    assert len(one) == 1 and len(default) == 5
    assert [m.memory_id for m in one] != [m.memory_id for m in default]


def test_chinese_question(home: Path) -> None:
    memories = ask(home, query="上周末我做了什么？")
    assert memories[0].memory_id in WEEKEND_MEMORIES


def test_cli_explain_and_json(home: Path) -> None:
    argv = [sys.executable, "-m", "flowmem", "run", "personal_retrieve", "-q", QUESTION, "-u", "alice", "-w", "demo",
            "--input", "timestamp=2024-06-12T20:00"]  # fmt: skip
    explained = subprocess.run([*argv, "--explain"], capture_output=True, text=True, check=True).stdout
    assert "query time: 'last weekend' → 2024-06-08T00:00:00 … 2024-06-10T00:00:00" in explained
    for factor in ("cosine", "recall", "rank", "type_ratio", "type_shift", "time_match", "time_ratio", "final"):
        assert f"   {factor}" in explained
    assert "recall fusion: union of " in explained
    assert "by retrieve_memory_op" in explained and "by fuse_rerank_op (observation)" in explained
    assert "near misses (" in explained and "dropped by fuse_rerank_op: final" in explained
    data = json.loads(subprocess.run([*argv, "--json"], capture_output=True, text=True, check=True).stdout)
    assert data["memories"][0]["memory_id"] in WEEKEND_MEMORIES
    assert "vector" not in data["memories"][0]
    assert data["answer"].startswith(("[2024-06-08", "[2024-06-09"))


@pytest.mark.slow
def test_quickstart_script_from_a_fresh_copy(tmp_path: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=REPO, capture_output=True,
        check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    checkout = tmp_path / "checkout"
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, checkout / name)
    env = {**os.environ, "FLOWMEM_HOME": str(tmp_path / "home")}
    env.pop("OPENAI_API_KEY", None)
    result = subprocess.run(["bash", "scripts/quickstart.sh"], cwd=checkout, env=env, capture_output=True, text=True,
                            timeout=900, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    answer = result.stdout.split("== flowmem run personal_retrieve", 1)[1].splitlines()[1]
    assert answer.startswith(("[2024-06-08", "[2024-06-09")), result.stdout
    # Then the README's first commands, as a new user types them after the quick start, in that checkout.
    from tests.integration.test_readme import blocks

    commands = next(body for lang, body, why, _ in blocks() if lang == "bash" and why is None)
    env["PATH"] = f"{checkout / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    for command in (c for c in commands.splitlines() if c.strip()):
        done = subprocess.run(["bash", "-c", command], cwd=checkout, env=env, capture_output=True, text=True,
                              timeout=300, check=False)  # fmt: skip
        assert done.returncode == (2 if "(exit 2)" in command else 0), f"{command}\n{done.stderr[-2000:]}"
        if command.startswith('flowmem search "what did I do last weekend?"'):
            assert done.stdout.startswith(("[2024-06-08", "[2024-06-09")), done.stdout
        if command.startswith('flowmem search "where do I live?"'):
            assert "Lisbon" in done.stdout, done.stdout
        if command.startswith("flowmem store list") and "expired" in command:
            assert "North Berkeley" in done.stdout, done.stdout  # the old home, superseded by the move
