"""``flowmem context`` and ``flowmem session``: a session continued across processes, flushed, read and cleared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.cli.test_cli import flowmem, run_cli

TURNS = [
    "I moved to Lisbon last month. It is sunny.",
    "My dog is called Rex.",
    "I work as a nurse at the city hospital.",
    "I am allergic to peanuts.",
]


def _store(tmp_path: Path) -> list[str]:
    return [
        "vector_store.default.backend=local",
        f"vector_store.default.params.directory={tmp_path / 'store'}",
        "embedding_model.default.backend=hash",
    ]


def test_a_session_continues_across_processes_and_flushes_at_the_ratio(tmp_path: Path) -> None:
    store = _store(tmp_path)
    first = flowmem("context", TURNS[0], "-u", "alice", "-s", "s1", "--token-limit", "60", "--json", *store)
    assert first.returncode == 0, first.stderr
    assert [m["content"] for m in json.loads(first.stdout)["chat_history"]] == [TURNS[0]]
    # a new process on the same store file: the session is still there
    second = flowmem("context", TURNS[1], "-u", "alice", "-s", "s1", "--token-limit", "60", "--json", *store)
    assert [m["content"] for m in json.loads(second.stdout)["chat_history"]] == TURNS[:2]
    flushed = None
    for text in TURNS[2:]:
        done = flowmem("context", text, "-u", "alice", "-s", "s1", "--token-limit", "60", "--explain", *store)
        assert done.returncode == 0, done.stderr
        if "flushed:" in done.stdout:
            flushed = done.stdout
            break
    assert flushed is not None, "the 42-token window never flushed"
    assert "short-term memory:" in flushed and "- I moved to Lisbon last month." in flushed
    shown = flowmem("session", "show", "s1", "-u", "alice", "--json", *store)
    session = json.loads(shown.stdout)
    assert session["flushed"] >= 1 and "Lisbon" in session["summary"]
    assert TURNS[0] not in [m["content"] for m in session["messages"]]
    found = flowmem("store", "list", "-u", "alice", "--json", *store)
    assert "Lisbon" in found.stdout  # flushed through the write flow: a long-term memory now


def test_session_clear_and_show(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = _store(tmp_path)
    code, out, _ = run_cli(capsys, "context", "hello there", "-u", "bob", "-s", "s9", *store)
    assert code == 0 and out.startswith("[user]\nhello there")  # the assembled context: the message, nothing else yet
    code, out, _ = run_cli(capsys, "session", "show", "s9", "-u", "bob", *store)
    assert code == 0 and "1 messages in the window, 0 flushed" in out
    code, out, _ = run_cli(capsys, "session", "clear", "s9", "-u", "bob", *store)
    assert code == 0 and out.strip() == "cleared session 's9' of 'bob' in workspace 'default'"
    code, out, _ = run_cli(capsys, "session", "clear", "s9", "-u", "bob", *store)
    assert code == 0 and "nothing to clear" in out
    code, _, err = run_cli(capsys, "session", "show", "s9", "-u", "bob", *store)
    assert code == 2 and err.strip() == "flowmem: error: no chat session 's9' of user 'bob' in workspace 'default'"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["context", " ", "-u", "alice", "-s", "s1"], "message: is empty"),
        (["context", "hi", "-u", "alice", "-s", ""], "session_id: '' is not a session id: it is empty"),
        (["context", "hi", "-u", "alice", "-s", "s1", "--token-limit", "0"], "token_limit: must be"),
        (["context", "hi", "-u", "alice", "-s", "s1", "-w", ""], "-w/--workspace: '' is not a workspace"),
        (["context", "hi", "-u", "alice", "-s", "bad\nid"], "session_id: 'bad\\nid' is not a session id"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], says: str
) -> None:
    code, out, err = run_cli(capsys, *argv, *_store(tmp_path))
    assert code == 2 and out == ""
    assert err.startswith("flowmem: error: ") and says in err and len(err.strip().splitlines()) == 1


def test_run_chat_context_without_a_session_names_the_option_run_has(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run_cli(capsys, "run", "chat_context", "-q", "hi", "-u", "alice", *_store(tmp_path))
    assert code == 2 and "needs input 'session_id'" in err
    assert "--input session_id=" in err and "-s/--session" not in err  # `flowmem run` has no -s
