"""Degradations during ingest: counted, said, returned, and with strict an error (flowmem.testing's fake LLM)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from flowmem import App
from flowmem.core.errors import DegradedError, FlowmemError
from flowmem.core.trace import LLM_CALL_FAILED, WARNING, Degradation, merge_degradations
from tests.unit.cli.test_cli import run_cli

FAST = ["vector_store.default.backend=memory", "embedding_model.default.backend=hash"]
T0 = datetime(2024, 5, 6, 9, 0)
REFUSED = "the LLM server at http://127.0.0.1:9/v1 refused the API key: 401 invalid API key"


def messages(n: int) -> list[dict[str, Any]]:
    facts = ["I live in Milan.", "My dog is called Rex.", "I work at Acme as a nurse.", "I'm vegetarian."]
    return [
        {"message_id": f"m{i}", "role": "user", "name": "alice", "content": facts[i % len(facts)],
         "time_created": (T0 + timedelta(minutes=i)).isoformat()}
        for i in range(n)
    ]  # fmt: skip


def fake_llm(**params: Any) -> dict[str, Any]:
    return {"llm": {"default": {"backend": "fake", "params": params}}}


def test_failed_llm_calls_are_counted_over_batches_with_the_first_reason() -> None:
    with App(config=fake_llm(fail=REFUSED), overrides=FAST) as app:
        result = app.memories.sync.add(messages(4), user_id="alice", batch=2)
    assert result.messages == 4 and result.counts["add"] == 4  # the offline rules did the work
    by_op = {d.op: d for d in result.degradations}
    assert set(by_op) == {"info_filter_op", "get_observation_op"}
    info = by_op["info_filter_op"]
    assert (info.kind, info.count) == (LLM_CALL_FAILED, 2)  # one failed call per batch, both counted
    assert info.reason == f"BackendUnavailableError: {REFUSED}"
    assert info.fallback == "scores the messages with the offline heuristics"
    assert result.degradation_summary()[0] == (
        f"info_filter_op: 2 LLM calls failed: BackendUnavailableError: {REFUSED}; "
        "scores the messages with the offline heuristics"
    )
    assert result.to_dict()["degradations"][0] == {
        "op": "info_filter_op", "kind": LLM_CALL_FAILED, "count": 2,
        "reason": f"BackendUnavailableError: {REFUSED}", "fallback": "scores the messages with the offline heuristics",
    }  # fmt: skip
    assert result.degraded


def test_no_llm_is_no_degradation() -> None:
    with App(overrides=FAST) as app:  # llm backend none: the offline path is the configured one, not a fallback
        result = app.memories.sync.add(messages(2), user_id="alice")
    assert result.degradations == [] and not result.degraded and result.counts["add"] == 2


def test_strict_stops_before_writing_the_degraded_batch() -> None:
    with App(config=fake_llm(fail=REFUSED), overrides=FAST) as app:
        with pytest.raises(DegradedError) as caught:
            app.memories.sync.add(messages(4), user_id="alice", batch=2, strict=True)
        assert app.memories.sync.list(user_id="alice").total == 0  # nothing of the batch was written
        again = app.memories.sync.add(messages(4), user_id="alice", batch=2)  # without strict: all of it
    error = caught.value
    assert isinstance(error, FlowmemError) and error.exit_code == 1
    assert error.degradation.op == "info_filter_op" and error.degradation.kind == LLM_CALL_FAILED
    assert error.partial is not None and error.partial.messages == 0
    assert str(error).startswith("strict: stopped at messages 1-2 of 4, not written: info_filter_op: LLM call failed: ")
    assert REFUSED in str(error) and "nothing was written" in str(error)
    assert again.counts["add"] == 4


def test_strict_after_good_batches_says_what_was_written() -> None:
    # Batch 1: the LLM's replies are usable; batch 2: the filter's reply is not JSON (a warning, not a failure).
    facts = json.dumps(
        [
            {"message": 0, "content": "Alice lives in Milan", "when_to_use": "home", "keywords": ["Milan"]},
            {"message": 1, "content": "Alice has a dog named Rex", "when_to_use": "pets", "keywords": []},
        ]
    )
    llm = fake_llm(replies=['{"0": 3, "1": 3}', facts, "not json at all"])
    with App(config=llm, overrides=FAST) as app:
        with pytest.raises(DegradedError) as caught:
            app.memories.sync.add(messages(4), user_id="alice", batch=2, strict=True)
        stored = app.memories.sync.list(user_id="alice")
    error = caught.value
    assert error.degradation.kind == WARNING and error.degradation.op == "info_filter_op"
    assert error.partial.messages == 2 and error.partial.counts["add"] == 2
    assert "stopped at messages 3-4 of 4" in str(error)
    assert "the 2 messages before it were written (add 2)" in str(error)
    assert sorted(m.content for m in stored.memories) == ["Alice has a dog named Rex", "Alice lives in Milan"]


def test_strict_text_add() -> None:
    config = fake_llm(fail=REFUSED)
    with App(config=config, overrides=[*FAST, "op.contra_repeat_op.params.policy=llm"]) as app:
        first = app.memories.sync.add(text="I live in Milan", user_id="alice")  # nothing to compare: no LLM call
        assert first.degradations == [] and first.counts["add"] == 1
        with pytest.raises(DegradedError, match="strict: stopped at the text, not written: contra_repeat_op"):
            app.memories.sync.add(text="I live in Turin", user_id="alice", strict=True)
        assert app.memories.sync.list(user_id="alice").total == 1


def test_merge_counts_the_same_op_and_kind_together() -> None:
    into = [Degradation("a", WARNING, "first", count=1)]
    merge_degradations(into, [Degradation("a", WARNING, "second"), Degradation("b", LLM_CALL_FAILED, "x", "y", 3)])
    assert [(d.op, d.kind, d.reason, d.count) for d in into] == [
        ("a", WARNING, "first", 2),
        ("b", LLM_CALL_FAILED, "x", 3),
    ]
    assert into[0].summary() == "a: 2 warnings: first"
    assert into[1].summary() == "b: 3 LLM calls failed: x; y"


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_ingest_says_every_degradation_and_strict_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chat = write_jsonl(tmp_path / "chat.jsonl", messages(4))
    config = tmp_path / "fake.yaml"
    config.write_text(json.dumps(fake_llm(fail=REFUSED)), encoding="utf-8")
    store = ["vector_store.default.backend=local", f"vector_store.default.params.directory={tmp_path / 'store'}",
             "embedding_model.default.backend=hash"]  # fmt: skip
    code, _, err = run_cli(capsys, "ingest", str(chat), "-u", "alice", "--strict", "--batch", "2", "-c", str(config),
                           *store)  # fmt: skip
    assert code == 1, err
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith(
            "flowmem: error: strict: stopped at messages 1-2 of 4, not written: info_filter_op: LLM call failed: "
        )
    )
    code, out, _ = run_cli(capsys, "store", "list", "--json", *store)
    assert code == 0 and out.strip() == ""  # strict wrote nothing

    code, _, err = run_cli(capsys, "ingest", str(chat), "-u", "alice", "--batch", "2", "-c", str(config), *store)
    assert code == 0, err
    lines = err.strip().splitlines()
    assert lines[-3] == "add 4, messages 4, messages already memorized 0"
    assert lines[-2] == (
        f"warning: degraded: info_filter_op: 2 LLM calls failed: BackendUnavailableError: {REFUSED}; "
        "scores the messages with the offline heuristics"
    )
    assert lines[-1].startswith("warning: degraded: get_observation_op: 2 LLM calls failed: ")
