"""`flowmem eval locomo`: reading the format, normalising evidence, recall@k, the A/B table."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from flowmem.eval.locomo import load, normalise_dia_ids, parse_session_time
from flowmem.eval.report import recall_at
from flowmem.eval.runner import QuestionResult
from tests.unit.cli.test_cli import run_cli

HASH = ["embedding_model.default.backend=hash"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("D1:3", ["D1:3"]), ("D:11:26", ["D11:26"]), ("D8:6; D9:17", ["D8:6", "D9:17"]), ("D30:05", ["D30:5"]),
     (["D1:1", "D 2 : 3"], ["D1:1", "D2:3"]), ("nonsense", ["nonsense"]), ("", []),
     ("D9:1 D4:4 D4:6", ["D9:1", "D4:4", "D4:6"]), (["D2:1  D:3:04,D5:6"], ["D2:1", "D3:4", "D5:6"]),
     ("D1:2 junk", ["D1:2", "junk"])],
)  # fmt: skip
def test_normalise_dia_ids(raw: object, expected: list[str]) -> None:
    assert normalise_dia_ids(raw) == expected


def test_session_time() -> None:
    assert parse_session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert parse_session_time("10:04  am on 19 June,  2023") == datetime(2023, 6, 19, 10, 4)


def sample(tmp_path: Path) -> Path:
    data = [
        {
            "sample_id": "conv-x",
            "conversation": {
                "speaker_a": "Ana", "speaker_b": "Ben",
                "session_1_date_time": "9:00 am on 1 May, 2023",
                "session_1": [
                    {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey cat named Pixel."},
                    {"speaker": "Ben", "dia_id": "D1:2", "text": "My sister runs a bakery in Lisbon."},
                ],
                "session_2_date_time": "6:30 pm on 20 May, 2023",
                "session_2": [
                    {"speaker": "Ana", "dia_id": "D2:1", "text": "Pixel the cat learned to open doors.",
                     "blip_caption": "a grey cat"},
                    {"speaker": "Ben", "dia_id": "D2:2", "text": "We went kayaking on the river."},
                ],
            },
            "qa": [
                {"question": "What is the name of Ana's cat?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
                {"question": "Where is the bakery of Ben's sister?", "evidence": ["D:1:2"], "category": 1},
                {"question": "What did the cat Pixel learn?", "evidence": ["D2:1; D1:1"], "category": 2},
                {"question": "Unanswerable", "adversarial_answer": "x", "evidence": ["D2:2"], "category": 5},
                {"question": "Where did they kayak?", "evidence": ["D9:9"], "category": 3},
                {"question": "Who has a cat and a sister?", "evidence": ["D1:1 D1:2 D7:1"], "category": 1},
            ],
        }
    ]  # fmt: skip
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data))
    return path


def test_load(tmp_path: Path) -> None:
    [conversation] = load(sample(tmp_path))
    assert [t.dia_id for t in conversation.turns] == ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert conversation.last_time == datetime(2023, 5, 20, 18, 30)
    assert [q.category for q in conversation.questions] == [4, 1, 2, 3, 1]  # category 5 left out
    assert conversation.questions[1].evidence == ("D1:2",)
    assert conversation.questions[2].evidence == ("D2:1", "D1:1")
    assert conversation.questions[3].missing_evidence == ("D9:9",)
    assert conversation.questions[4].evidence == ("D1:1", "D1:2")  # written with spaces
    assert conversation.questions[4].missing_evidence == ("D7:1",)


def test_recall_at_k() -> None:
    result = QuestionResult("c", "q", 1, ("a", "b"), ["x", "a", "y", "b"], 1.0)
    assert [recall_at(result, k) for k in (1, 2, 4)] == [0.0, 0.5, 1.0]


def test_cli_with_a_baseline(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = sample(tmp_path)
    out_file = tmp_path / "report.json"
    code, out, err = run_cli(capsys, "eval", "locomo", str(path), "--k", "1,2", "--compare-flow", "vector_baseline",
                             "-o", str(out_file), *HASH)  # fmt: skip
    assert code == 0, err
    assert out.splitlines()[0].startswith("| category | n | personal_retrieve R@1 | personal_retrieve R@2 |")
    assert "Δ R@1" in out.splitlines()[0]
    report = json.loads(out_file.read_text())
    main, baseline = report["runs"]
    assert main["questions"] == 5 and main["questions_with_evidence"] == 4 and main["missing_evidence_ids"] == 2
    assert main["missing_evidence_examples"] == [
        {"sample_id": "conv-x", "question": "Where did they kayak?", "evidence": "D9:9"},
        {"sample_id": "conv-x", "question": "Who has a cat and a sister?", "evidence": "D7:1"},
    ]
    assert '- evidence ids that name no turn: 2 (not scored; e.g. conv-x `D9:9` in "Where did they kayak?"' in out
    assert baseline["flow"] == "vector_baseline"
    assert main["overall"]["R@2"] >= 0.5  # hash embeddings still find "Pixel" and "bakery"
    assert report["difference"] == {k: round(main["overall"][k] - baseline["overall"][k], 4) for k in ("R@1", "R@2")}
    assert "conv-x" in err  # progress on stderr


def test_cli_compare_overrides(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run_cli(capsys, "eval", "locomo", str(sample(tmp_path)), "--k", "1", "--json", *HASH,
                           "--compare", "op.fuse_rerank_op.params.fuse_time_ratio=1")  # fmt: skip
    assert code == 0
    report = json.loads(out)
    assert report["runs"][1]["label"] == "baseline"
    assert report["runs"][1]["overrides"][-1] == "op.fuse_rerank_op.params.fuse_time_ratio=1"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [("{not json", "is not JSON"), ('{"a": 1}', "JSON list of samples"), ('[{"qa": []}]', "not in the LoCoMo format")],
)
def test_bad_files_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, _, err = run_cli(capsys, "eval", "locomo", str(path), *HASH)
    assert code == 2 and fragment in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "eval", "locomo", str(path), "--k", "0", *HASH)
    assert code == 2 and "cut-offs" in err


def test_cli_summary_ingest(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(capsys, "eval", "locomo", str(sample(tmp_path)), "--k", "1,4", "--ingest", "summary",
                             "--json", *HASH)  # fmt: skip
    assert code == 0, err
    [run] = json.loads(out)["runs"]
    assert run["ingest"] == "summary"
    # The offline filter keeps first-person turns with personal facts: Ana's cat; Ben's sister and kayaking.
    assert run["overall"]["R@4"] > 0
    assert "summarized" in err


def test_cli_compare_ingest(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The write path against raw turns in one run: the same flow and overrides, ingested both ways."""
    code, out, err = run_cli(capsys, "eval", "locomo", str(sample(tmp_path)), "--k", "1,4", "--ingest", "summary",
                             "--compare-ingest", "turns", "--json", *HASH)  # fmt: skip
    assert code == 0, err
    summary, turns = json.loads(out)["runs"]
    assert (summary["ingest"], turns["ingest"]) == ("summary", "turns")
    assert (summary["label"], turns["label"]) == ("personal_retrieve (summary)", "baseline (turns)")
    assert summary["flow"] == turns["flow"] == "personal_retrieve" and summary["overrides"] == turns["overrides"]
    assert "summarized" in err and "embedding" in err


def test_summary_ingest_keeps_each_turns_speaker_and_session(tmp_path: Path) -> None:
    from flowmem import App
    from flowmem.eval.runner import RunSpec, _summarize

    [conversation] = load(sample(tmp_path))
    with App(overrides=["vector_store.default.backend=memory", *HASH]) as app:
        app.run_coroutine(_summarize(app, RunSpec("s", "personal_retrieve", ingest="summary"), conversation, "w",
                                     conversation.sample_id, None))  # fmt: skip
        stored = app.memories.sync.list(workspace_id="w", limit=None).memories
    speakers = {turn.dia_id: (turn.speaker, turn.session) for turn in conversation.turns}
    assert stored and all((m.metadata["speaker"], m.metadata["session"]) == speakers[m.source[0]] for m in stored)
