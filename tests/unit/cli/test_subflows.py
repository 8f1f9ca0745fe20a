"""A user's config whose flows include other flows, run from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.cli.test_cli import TESTING, flowmem

CONFIG = """\
flow:
  greet_part:
    flow_content: echo_op
    description: the greeting itself
  greet:
    flow_content: noop_op >> greet_part
  loop_a:
    flow_content: noop_op >> loop_b
  loop_b:
    flow_content: loop_a
op:
  echo_op:
    params:
      prefix: "hi "
"""


def test_run_a_flow_that_includes_another(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text(CONFIG)
    result = flowmem("run", "greet", "-q", "alice", "-c", "mine.yaml", *TESTING, "--trace", cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "hi alice"
    assert "echo_op (greet_part)" in result.stderr + result.stdout  # the trace names the flow the op came from

    # An override of an included op reaches it.
    result = flowmem("run", "greet", "-q", "alice", "-c", "mine.yaml", *TESTING, "op.echo_op.params.prefix=yo ",
                     cwd=str(tmp_path))  # fmt: skip
    assert result.returncode == 0 and result.stdout.splitlines()[0] == "yo alice", result.stderr


def test_a_cycle_is_exit_2_with_one_message_and_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text(CONFIG)
    result = flowmem("run", "loop_a", "-q", "alice", "-c", "mine.yaml", *TESTING, cwd=str(tmp_path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    first, *caret = result.stderr.splitlines()
    assert first == (
        "flowmem: error: flow 'loop_a': in flow 'loop_b' (included: loop_a → loop_b): flows include each other "
        "(loop_a → loop_b → loop_a); a flow cannot contain itself (column 1)"
    )
    assert caret == ["    loop_a", "    ^"]  # under the name in loop_b's text


def test_flows_lists_what_a_flow_includes_and_is_included_by(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text(CONFIG)
    result = flowmem("flows", "--json", "-c", "mine.yaml", *TESTING, cwd=str(tmp_path))
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["greet"]["flow"] == "noop_op >> greet_part" and rows["greet"]["includes"] == ["greet_part"]
    assert rows["greet_part"]["included_by"] == ["greet"] and rows["greet_part"]["inputs"]["required"] == ["query"]
    assert "problems" in rows["loop_a"]
    text = flowmem("flows", "-c", "mine.yaml", *TESTING, cwd=str(tmp_path)).stdout
    assert "    includes: greet_part" in text
    assert "    included by: greet\n" in text


def test_validate_says_a_broken_included_flow_once_and_points_its_includers_there(tmp_path: Path) -> None:
    broken = "flow:\n  greet_part: {flow_content: ecko_op}\n  greet: {flow_content: noop_op >> greet_part}\n"
    (tmp_path / "mine.yaml").write_text(broken + "  again: {flow_content: greet_part | noop_op}\n")
    result = flowmem("validate", "-c", "mine.yaml", *TESTING, cwd=str(tmp_path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("unknown op 'ecko_op'") == 1, result.stderr
    pointer = "includes flow 'greet_part', which is invalid (see its problems)"
    assert f"flow 'greet': {pointer}" in result.stderr and f"flow 'again': {pointer}" in result.stderr
