"""`flowmem eval updates`: the scenario format, matching and grading, and the shipped scenarios run offline."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from flowmem.eval.updates import Scenario, answer_rank, event_days, grade, holds, load, resolve, shipped_path
from flowmem.schema.memory import Memory
from tests.unit.cli.test_cli import run_cli

HASH = ["embedding_model.default.backend=hash"]


def memory(content: str, status: str = "valid", **fields: Any) -> Memory:
    return Memory(content=content, workspace_id="w", target="user", status=status, **fields)  # type: ignore[arg-type]


def scenario(**fields: Any) -> Scenario:
    base: dict[str, Any] = {"id": "s", "lang": "en", "messages": [{"content": "x", "time": "2025-03-24T18:00"}]}
    return Scenario.model_validate({**base, **fields})


def test_a_fact_is_held_when_every_phrase_occurs_case_and_space_insensitively() -> None:
    lives = memory("The user  LIVES in Milan’s centre")
    assert holds(lives, ["live", "milan's"])  # substring, case-folded, apostrophes unified, spaces folded
    assert not holds(lives, ["live", "Turin"])
    assert holds(memory("我和我的狗旺财住在米兰。"), ["住在米兰", "旺财"])


def test_event_days_from_a_range_or_from_parts() -> None:
    ranged = memory("trip", event_start=datetime(2025, 5, 1), event_end=datetime(2025, 5, 31, 23, 59))
    assert event_days(ranged) == (datetime(2025, 5, 1), datetime(2025, 5, 31, 23, 59))
    day = memory("dinner").with_event_time(datetime(2025, 3, 28, 20, 0))
    assert event_days(day) == (datetime(2025, 3, 28), datetime(2025, 3, 29))
    assert event_days(memory("no time")) is None


def test_grading_counts_each_kind_of_mistake() -> None:
    case = scenario(
        valid=[["Turin"], ["Rex"], ["Acme"]], expired=[["live", "Milan"], ["Globex"]], unique=[["Turin"]],
        events=[{"fact": ["dinner"], "date": "2025-03-28"},
                {"fact": ["Lisbon"], "start": "2025-05-01", "end": "2025-05-31"},
                {"fact": ["talk"], "date": "2025-03-29"}],
    )  # fmt: skip
    memories = [
        memory("I live in Milan with my dog Rex", "expired"),  # Milan rightly expired, Rex wrongly
        memory("I moved to Turin today!"),
        memory("Turin is home now"),  # Turin twice: duplicated
        memory("I work at Globex"),  # stale
        memory("dinner with Sofia").with_event_time(datetime(2025, 3, 28, 20)),  # right day
        memory("Lisbon next month", event_start=datetime(2025, 5, 1), event_end=datetime(2025, 5, 31)),  # inside
        memory("the talk").with_event_time(datetime(2025, 3, 22)),  # the Saturday before: wrong
    ]  # Acme is in no memory: lost
    result = grade(case, memories)
    counts = {k: v for k, v in result.to_dict().items() if k in result.COUNTS}
    assert counts == {"valid": 3, "wrongly_expired": 1, "expired": 2, "stale": 1, "events": 3, "events_right": 2,
                      "unique": 1, "duplicated": 1, "facts": 8, "lost": 1}  # fmt: skip
    assert result.rates() == {"stale_rate": 0.5, "wrongly_expired_rate": 0.3333, "event_date_accuracy": 0.6667,
                              "duplicate_rate": 1.0, "lost_rate": 0.125}  # fmt: skip
    assert [f.split(":")[0] for f in result.failures] == [
        "lost",
        "wrongly expired",
        "stale",
        "event date",
        "duplicated",
    ]
    assert "expected 2025-03-29..2025-03-29, stored 2025-03-22..2025-03-22" in result.failures[3]


def test_an_event_is_wrong_when_any_valid_memory_of_it_has_another_date_or_none() -> None:
    case = scenario(events=[{"fact": ["dentist"], "date": "2025-04-28"}])
    right = memory("dentist on the 28th").with_event_time(datetime(2025, 4, 28, 9))
    assert grade(case, [right]).events_right == 1
    assert grade(case, [right, memory("dentist again")]).events_right == 0  # a second one without a date
    assert grade(case, [right, memory("dentist", "expired")]).events_right == 1  # expired ones do not count
    assert grade(case, []).events_right == 0


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_bad_scenario_files_exit_2_with_every_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = json.dumps({"id": "a", "lang": "en", "messages": [{"content": "hi", "time": "2025-01-01T10:00"}]})
    bad = write(tmp_path / "bad.jsonl", [
        good, "{not json", good,
        json.dumps({"id": "b", "lang": "fr", "messages": []}),
        json.dumps({"id": "c", "lang": "en", "messages": [{"content": "x", "time": "2025-01-01"}],
                    "events": [{"fact": ["x"]}], "valid": [[]]}),
    ])  # fmt: skip
    code, out, err = run_cli(capsys, "eval", "updates", str(bad), *HASH)
    assert code == 2 and out == "" and "Traceback" not in err
    assert f"{bad}:2: not JSON" in err
    assert f"{bad}:3: scenario id 'a' is used twice" in err
    assert f"{bad}:4: lang: Input should be 'en' or 'zh'" in err and "messages: List should have at least 1 item" in err
    assert f"{bad}:5: " in err and "give either date, or start and end" in err and "valid.0" in err
    code, _, err = run_cli(capsys, "eval", "updates", str(tmp_path / "missing.jsonl"), *HASH)
    assert code == 2 and "cannot read the scenarios" in err


def test_the_shipped_scenarios() -> None:
    scenarios = load(shipped_path())
    assert len(scenarios) >= 40
    langs = Counter(s.lang for s in scenarios)
    assert langs["en"] >= 20 and langs["zh"] >= 20
    tags = Counter(t for s in scenarios for t in s.tags)
    for kind in ("residence", "employer", "job title", "relationship", "partner", "school", "phone", "email", "pet",
                 "indirect", "non-change", "repeat", "paraphrase", "multi-fact", "event", "holiday"):  # fmt: skip
        assert tags[kind] >= 2, kind  # each kind in both languages at least once
    assert all(s.valid or s.expired or s.events or s.unique for s in scenarios)


def test_eval_updates_runs_offline_on_the_shipped_scenarios(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The harness, with hash embeddings so it is quick; BENCHMARKS.md has the figures of the default (local e5) setup.
    output = tmp_path / "updates.json"
    code, out, err = run_cli(capsys, "eval", "updates", "shipped", "-o", str(output), *HASH)
    assert code == 0, err
    report = json.loads(output.read_text(encoding="utf-8"))
    main, baseline = report["runs"]
    assert (main["flow"], baseline["flow"]) == ("personal_summary", "updates_baseline")
    assert main["scenarios"] == baseline["scenarios"] == len(load(shipped_path()))
    assert set(main["per_language"]) == {"en", "zh"}
    for run in (main, baseline):
        overall = run["overall"]
        assert overall["facts"] >= 80 and overall["expired"] >= 20 and overall["events"] >= 15
        assert overall["unique"] >= 8 and overall["valid"] >= 40
        assert sum(s["facts"] for s in run["per_scenario"]) == overall["facts"]
        assert run["degradations"] == []  # offline: no LLM, nothing degraded
    # The baseline appends: it expires nothing, so every superseded fact it stored is still valid.
    assert baseline["overall"]["wrongly_expired"] == 0
    held_expired = sum(
        1 for s in baseline["per_scenario"] for f in s["failures"] if f.startswith("stale")
    )  # fmt: skip
    assert held_expired == baseline["overall"]["stale"] > 0
    # contra_repeat_op is what the eval measures: it must do better than appending where it acts.
    assert main["overall"]["stale"] < baseline["overall"]["stale"]
    assert main["overall"]["duplicated"] < baseline["overall"]["duplicated"]
    # The naive baseline (every user turn as said) expires nothing either: every superseded fact is stale.
    naive = report["naive_baseline"]
    assert naive["scenarios"] == main["scenarios"] and naive["overall"]["stale"] == naive["overall"]["expired"]
    assert naive["overall"]["wrongly_expired"] == 0 and naive["overall"]["event_date_accuracy"] is None
    # The markdown: the five figures with their targets, both runs, then the failures of the first.
    assert out.startswith("| figure | target | personal_summary | baseline (no contra_repeat_op) |")
    for row in ("| stale facts | ≤ 5 % |", "| wrongly expired | ≤ 2 % |", "| event-date accuracy | ≥ 95 % |",
                "| duplicates | ≤ 5 % |", "| lost facts |  |"):  # fmt: skip
        assert row in out
    assert "Failures of personal_summary (" in out


def test_json_and_no_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = write(tmp_path / "one.jsonl", [json.dumps({
        "id": "moved", "lang": "en", "valid": [["Turin"]], "expired": [["live", "Milan"]],
        "messages": [{"content": "I live in Milan.", "time": "2025-03-01T10:00"},
                     {"content": "I live in Turin now.", "time": "2025-03-24T18:00"}],
    })])  # fmt: skip
    code, out, err = run_cli(capsys, "eval", "updates", str(one), "--no-baseline", "--json", *HASH)
    assert code == 0, err
    report = json.loads(out)
    assert [r["label"] for r in report["runs"]] == ["personal_summary"]
    scenario_report = report["runs"][0]["per_scenario"][0]
    assert scenario_report["id"] == "moved" and scenario_report["memories"] == 2
    assert (scenario_report["stale"], scenario_report["wrongly_expired"], scenario_report["lost"]) == (0, 0, 0)


# -- questions, the naive baseline, several files --------------------------------------------------
MOVED = {
    "id": "moved", "lang": "en", "valid": [["Turin"]], "expired": [["live", "Milan"]], "unique": [["Rex"]],
    "events": [{"fact": ["dentist"], "date": "2025-03-28"}],
    "messages": [{"content": "I live in Milan with my dog Rex.", "time": "2025-03-01T10:00"},
                 {"content": "Nice, Milan is lovely.", "time": "2025-03-01T10:01", "role": "assistant"},
                 {"content": "I moved to Turin today, Rex loves it!", "time": "2025-03-24T18:00"},
                 {"content": "I have a dentist appointment on Friday.", "time": "2025-03-24T18:05"}],
    "questions": [{"question": "Which city do I live in?", "asked_at": "2025-03-25T09:00", "answer": ["Turin"]},
                  {"question": "What is my dog called?", "asked_at": "2025-03-25T09:00", "answer": ["Rex"]}],
}  # fmt: skip


def test_a_question_is_answered_by_the_first_memory_holding_every_key_word() -> None:
    from flowmem.eval.updates_run import Answer, question_figures

    retrieved = [memory("I live in Milan"), memory("my dog Rex"), memory("I moved to Turin with Rex")]
    assert answer_rank(retrieved, ["Turin", "Rex"]) == 3
    assert answer_rank(retrieved, ["rex"]) == 2
    assert answer_rank(retrieved, ["Turin"], depth=2) is None  # beyond the depth: not found
    asked = scenario(questions=[{"question": "where?", "asked_at": "2025-03-25T09:00", "answer": ["Turin"]}])
    question = asked.questions[0]
    figures = question_figures([Answer(question, rank, None) for rank in (1, 3, None, 6)])
    assert figures == {"n": 4, "right_first": 0.25, "in_top_5": 0.5, "mrr_at_10": round((1 + 1 / 3 + 1 / 6) / 4, 4)}
    assert question_figures([])["right_first"] is None
    with pytest.raises(ValueError, match="answer"):
        scenario(questions=[{"question": "where?", "asked_at": "2025-03-25T09:00", "answer": []}])


def test_questions_are_graded_beside_a_naive_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = write(tmp_path / "one.jsonl", [json.dumps(MOVED)])
    code, out, err = run_cli(capsys, "eval", "updates", str(one), "--no-baseline", "--json", *HASH)
    assert code == 0, err
    report = json.loads(out)
    assert report["path"] == str(one) and report["search_flow"] == "personal_retrieve"
    (main,) = report["runs"]
    naive = report["naive_baseline"]
    assert (main["ingest"], main["search_flow"]) == ("flow", "personal_retrieve")
    assert (naive["ingest"], naive["flow"], naive["search_flow"]) == ("turns", None, "vector_baseline")
    # The naive baseline keeps every user turn as said (not the assistant's), expires and merges nothing.
    assert naive["per_scenario"][0]["memories"] == 3
    assert naive["overall"]["stale"] == 1 and naive["overall"]["wrongly_expired"] == 0
    assert naive["overall"]["duplicated"] == 1 and naive["overall"]["lost"] == 0
    assert naive["overall"]["events"] == 0 and naive["overall"]["event_date_accuracy"] is None  # no event times
    assert main["overall"]["stale"] == 0 and main["overall"]["events"] == 1
    for run in (main, naive):
        figures = run["questions"]["overall"]
        assert figures["n"] == 2 and run["questions"]["per_language"]["en"] == figures
        asked = run["per_scenario"][0]["questions"]
        assert [q["answer"] for q in asked] == [["Turin"], ["Rex"]]
        assert all(q["rank"] is None or 1 <= q["rank"] <= 10 for q in asked)
        ranks = [q["rank"] for q in asked]
        assert figures["right_first"] == sum(r == 1 for r in ranks) / 2
    # flowmem expired Milan, so search can only return the current city first.
    assert main["per_scenario"][0]["questions"][0]["rank"] == 1

    code, out, err = run_cli(capsys, "eval", "updates", str(one), *HASH)
    assert code == 0, err
    assert out.startswith("| figure | target | personal_summary | baseline (no contra_repeat_op) | naive (turns")
    assert "| questions: right first (n 2) |" in out and "| questions: MRR@10 (n 2) |" in out
    assert "n/a (a turn has no event time)" in out
    code, out, err = run_cli(capsys, "eval", "updates", str(one), "--no-naive", "--json", *HASH)
    assert code == 0, err
    assert json.loads(out)["naive_baseline"] is None


def test_several_files_are_reported_each_on_their_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = write(tmp_path / "first.jsonl", [json.dumps(MOVED)])
    second = write(tmp_path / "second.jsonl", [json.dumps({**MOVED, "id": "other", "questions": []})])
    code, out, err = run_cli(capsys, "eval", "updates", str(first), str(second), *HASH, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert "runs" not in report
    assert [f["path"] for f in report["files"]] == [str(first), str(second)]
    for entry, ids, questions in zip(report["files"], (["moved"], ["other"]), (2, 0), strict=True):
        assert [s["id"] for s in entry["runs"][0]["per_scenario"]] == ids
        assert entry["runs"][0]["questions"]["overall"]["n"] == questions
        assert entry["naive_baseline"]["questions"]["overall"]["n"] == questions
    code, out, err = run_cli(capsys, "eval", "updates", str(first), str(second), "--no-baseline", *HASH)
    assert code == 0, err
    assert f"## {first}\n\n| figure |" in out and f"## {second}\n\n| figure |" in out


def test_dev_and_heldout_name_every_file_of_their_half(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import flowmem.eval.updates as updates
    from flowmem.core.errors import InputError

    halves = tmp_path / "scenarios-2026"
    halves.mkdir()
    for name in ("zh.dev.jsonl", "en.dev.jsonl", "en.heldout.jsonl", "notes.md"):
        (halves / name).write_text("", encoding="utf-8")
    monkeypatch.setattr(updates, "shipped_path", lambda: tmp_path / "updates.jsonl")
    assert resolve("dev") == [halves / "en.dev.jsonl", halves / "zh.dev.jsonl"]
    assert resolve("heldout") == [halves / "en.heldout.jsonl"]
    assert resolve("shipped") == [tmp_path / "updates.jsonl"]
    assert resolve("mine.jsonl") == [Path("mine.jsonl")]
    (halves / "en.heldout.jsonl").unlink()
    with pytest.raises(InputError, match="heldout"):
        resolve("heldout")
