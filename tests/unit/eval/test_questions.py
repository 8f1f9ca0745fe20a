"""`flowmem eval questions`: the question format, the shipped set on the sample, the figures, loud failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flowmem.eval.questions import Question, check_answers, load, shipped_questions_path
from flowmem.eval.questions_run import Answered, QuestionsRun
from flowmem.eval.runner import RunSpec
from flowmem.eval.samples import load_memories
from tests.unit.cli.test_cli import run_cli

HASH = ["embedding_model.default.backend=hash"]


def test_the_shipped_questions_name_valid_sample_memories() -> None:
    questions = load(shipped_questions_path())
    assert len(questions) >= 40
    assert {q.lang for q in questions} == {"en", "zh"}
    check_answers(questions, load_memories(), "sample")  # raises on an unknown, expired or other user's id


def test_figures() -> None:
    one = Question(id="a", question="x?", answers=["m1"])
    two = Question(id="b", question="y?", answers=["m2", "m3"])
    run = QuestionsRun(RunSpec("t", "f"), [Answered(one, ["m1", "m9"], 1.0), Answered(two, ["m9", "m3", "m2"], 1.0)])
    figures = run.figures([1, 2, 3])
    assert figures == {"n": 2, "right_first": 0.5, "R@1": 0.5, "R@2": 0.75, "R@3": 1.0, "MRR": 0.75}


def write(tmp_path: Path, questions: list[dict[str, object]]) -> tuple[Path, Path]:
    memories = [
        {"memory_id": "m-home", "workspace_id": "w", "target": "alice", "content": "Alice lives in Lisbon, in Alfama."},
        {"memory_id": "m-cat", "workspace_id": "w", "target": "alice", "content": "Alice's cat is called Pixel."},
        {"memory_id": "m-old", "workspace_id": "w", "target": "alice", "content": "Alice lived in Porto.",
         "status": "expired"},
        {"memory_id": "m-bob", "workspace_id": "w", "target": "bob", "content": "Bob lives in Faro."},
    ]  # fmt: skip
    memories_file, questions_file = tmp_path / "memories.jsonl", tmp_path / "questions.jsonl"
    memories_file.write_text("".join(json.dumps(m) + "\n" for m in memories))
    questions_file.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions))
    return questions_file, memories_file


def test_cli_run_with_a_baseline(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    questions, memories = write(tmp_path, [
        {"id": "cat", "question": "what is Pixel?", "answers": ["m-cat"], "tags": ["pet"]},
        {"id": "home", "question": "where does Alice live, Lisbon?", "answers": ["m-home"],
         "asked_at": "2024-06-12T20:00"},
    ])  # fmt: skip
    out_file = tmp_path / "report.json"
    code, out, err = run_cli(capsys, "eval", "questions", str(questions), "--memories", str(memories), "--k", "1,3",
                             "--compare-flow", "vector_baseline", "-o", str(out_file), *HASH)  # fmt: skip
    assert code == 0, err
    assert out.splitlines()[0].startswith("| questions | n | personal_retrieve right first | personal_retrieve R@1 |")
    assert "| tag pet | 1 |" in out and "target ≥ 70%" in out
    report = json.loads(out_file.read_text())
    main, baseline = report["runs"]
    assert baseline["flow"] == "vector_baseline" and main["overall"]["n"] == 2
    assert set(main["overall"]) == {"n", "right_first", "R@1", "R@3", "MRR"}
    assert [q["id"] for q in main["per_question"]] == ["cat", "home"]
    assert "m-bob" not in {m for q in main["per_question"] for m in q["retrieved"]}  # scoped to the asking user
    assert baseline["overall"]["R@3"] == 1.0  # two valid memories of alice: both found in the top 3
    assert "2/2 questions" in err  # progress on stderr


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [("m-nope", "answer 'm-nope' names no memory (ids are like m-home, m-cat, m-old)"),
     ("m-old", "answer 'm-old' is expired"), ("m-bob", "answer 'm-bob' is about 'bob', not the asking user 'alice'")],
)  # fmt: skip
def test_a_bad_answer_fails_loudly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, answer: str, fragment: str
) -> None:
    questions, memories = write(tmp_path, [{"id": "q1", "question": "where?", "answers": ["m-home", answer]}])
    code, _, err = run_cli(capsys, "eval", "questions", str(questions), "--memories", str(memories), *HASH)
    assert code == 2 and "question q1" in err and fragment in err and "Traceback" not in err


def test_bad_question_files_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"id": "a", "question": "x?", "answers": []}\n{"id": "a", "question": "y?", "answers": ["m"]}\nnope\n'
    )
    code, _, err = run_cli(capsys, "eval", "questions", str(path), *HASH)
    assert code == 2 and "q.jsonl:1" in err and "q.jsonl:3" in err and "not JSON" in err
    code, _, err = run_cli(capsys, "eval", "questions", "sample", "--k", "0", *HASH)
    assert code == 2 and "cut-offs" in err
