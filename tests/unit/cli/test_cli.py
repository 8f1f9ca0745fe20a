"""The `flowmem` command: output, exit codes, and one clear message for every user mistake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flowmem.cli.main import main
from flowmem.config.loader import load_config

TESTING = ["--plugin", "flowmem.testing.ops"]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def flowmem(*argv: str, cwd: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "flowmem", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


# -- must-show: user mistakes exit 2 with one message and no traceback ----------------------


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["run", "set_query", "-q", "x", "op.nope_op.params.x=1"], ["unknown op 'nope_op'", "valid: ", "set_query_op"]),
        (
            ["run", "set_query", "-q", "x", "op.set_query_op.params.timestmp=3"],
            ["op 'set_query_op' has no param 'timestmp'; did you mean 'timestamp'?"],
        ),
        (["run", "mine", "flow.mine.flow_content=a_op >> (b_op |"], ["flow 'mine'", "(column 16)", "^"]),
        (
            ["run", "set_query", "x.y=1"],
            ["unknown config section 'x'", "valid: embedding_model, flow, limits, llm, op"],
        ),
        (["run", "set_query"], ["needs input 'query'", "-q/--query"]),
        (
            ["run", "nope"],
            [
                "unknown flow 'nope'",
                "valid: chat_context, personal_add, personal_context, personal_entities, personal_insight, "
                "personal_print, personal_recall, personal_retrieve, personal_summary, personal_triples, "
                "session_append, set_query, vector_baseline",
            ],
        ),
        (["run", "set_query", "-q", "x", "-c", "no_such_preset"], ["unknown config preset 'no_such_preset'"]),
        (["run", "set_query", "-q", "x", "--input", "top_k=lots"], ["input 'top_k'"]),
        (["run", "set_query", "-q", "x", "--input", "nokey"], ["expected key=value"]),
        (["run", "set_query", "-q", "x", "top_k=3"], ["needs a section and a name", "--input key=value"]),
        (["run", "set_query", "-q", "x", "--plugin", "no_such_module"], ["cannot import plugin module"]),
        (["validate", "flow.bad.flow_content=noop_op >> nope_op"], ["unknown op 'nope_op'"]),
        (["nonsense"], ["invalid choice: 'nonsense'"]),
    ],
)
def test_user_mistakes_exit_2_with_one_message(argv: list[str], fragments: list[str]) -> None:
    result = flowmem(*argv)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr


def test_op_failure_exits_1_naming_op_and_flow_id() -> None:
    result = flowmem("run", "boom", *TESTING, "flow.boom.flow_content=fail_op")
    assert result.returncode == 1
    assert "op 'fail_op' failed in flow run " in result.stderr
    assert "Traceback" not in result.stderr


# -- commands ------------------------------------------------------------------------------


def test_run_prints_outputs_and_trace(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys, "run", "set_query", "-q", "what now?", "--input", "timestamp=2024-05-04 10:00", "--trace"
    )
    assert code == 0
    assert "query: what now?" in out
    assert "timestamp: 2024-05-04T10:00:00" in out
    assert "set_query_op" in err and "ok" in err


def test_run_json_with_overrides_after_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys,
        "run",
        "greet",
        "-q",
        "bob",
        *TESTING,
        "flow.greet.flow_content=echo_op",
        "op.echo_op.params.prefix=hi ",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["answer"] == "hi bob"
    assert "trace" not in data
    assert len(data["flow_id"]) == 32


def test_flows_lists_name_description_and_flow(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "flows", "flow.two.flow_content=set_query_op>>(noop_op|noop_op)", *TESTING)
    assert code == 0
    assert "set_query — Show the query" in out
    assert "set_query_op >> (noop_op | noop_op)" in out
    code, out, _ = run_cli(capsys, "flows", "--json")
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["set_query"]["inputs"]["required"] == ["query"]
    assert rows["personal_retrieve"]["inputs"]["required"] == ["query", "user_id"]
    assert rows["personal_context"]["inputs"]["required"] == ["query", "user_id", "messages"]


def test_ops_lists_params_types_defaults_and_docs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "ops", *TESTING)
    assert code == 0
    assert "sleep_op — Wait `ms` milliseconds" in out
    assert "ms: float = 0.0  — how long to wait, in milliseconds" in out
    assert "on failure: answers with the `fallback` param instead" in out
    code, out, _ = run_cli(capsys, "ops", "--json")
    [row] = [r for r in json.loads(out) if r["name"] == "set_query_op"]
    assert row["params"] == [
        {
            "name": "timestamp",
            "type": "datetime | None",
            "default": None,
            "required": False,
            "description": "fixed query time for every run (None → now)",
        }
    ]


def test_config_show_resolves_and_redacts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "s3cret-value")
    path = tmp_path / "c.yaml"
    path.write_text("flow: {f: {flow_content: sleep_op, description: '${MY_SERVICE_TOKEN}'}}\n")
    code, out, _ = run_cli(capsys, "config", "show", "-c", str(path), *TESTING, "op.sleep_op.params.ms=7")
    assert code == 0
    assert "s3cret-value" not in out
    assert "description: '***'" in out
    assert "ms: 7.0" in out  # effective, typed params


def test_validate_reports_every_flow(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "validate", *TESTING, "flow.ok2.flow_content=noop_op")
    assert code == 0
    shipped = len(load_config().config.flow)  # the shipped flows, plus ok2
    assert "ok  ok2" in out and "ok  personal_retrieve" in out and f"all {shipped + 1} flows are valid" in out
    code, out, err = run_cli(capsys, "validate", "flow.bad.flow_content=noop_op | nope_op", "flow.worse.flow_content=(")
    assert code == 2
    assert "BAD bad" in out and "BAD worse" in out
    assert "2 problems" in err


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.startswith("flowmem ")
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and "run" in out and "validate" in out


def test_verbose_enables_logging() -> None:
    result = flowmem("-vv", "run", "set_query", "-q", "x")
    assert result.returncode == 0
    assert "created llm 'default'" not in result.stderr  # set_query uses no backend: nothing to create


@pytest.mark.parametrize("when", ["2024-13-45", "next tuesday", ""])
def test_a_bad_at_time_is_one_message_and_exit_2(
    capsys: pytest.CaptureFixture[str], when: str, store: list[str]
) -> None:
    code, _, err = run_cli(capsys, "search", "where do I live?", "-u", "alice", "--at", when, *store)
    assert code == 2 and err.count("flowmem: error:") == 1 and "--at" in err and "Traceback" not in err


def test_at_takes_the_same_times_as_the_timestamp_input(capsys: pytest.CaptureFixture[str], store: list[str]) -> None:
    for when in ("2024-07-03T09:00", "2024-07-03T09:00Z", "1720000000"):
        code, _, err = run_cli(capsys, "add", "I like green tea", "-u", "alice", "--at", when, "--json", *store)
        assert code == 0, err
