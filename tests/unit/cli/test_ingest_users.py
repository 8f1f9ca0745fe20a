"""`flowmem ingest`: whose messages (-u and `name`), and every message left out said per reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.cli.test_cli import run_cli

EPHEMERAL = ["vector_store.default.backend=memory", "embedding_model.default.backend=hash"]


def chat(path: Path, *lines: tuple[str, str, str]) -> Path:
    path.write_text("".join(
        json.dumps({"message_id": f"m{i}", "role": role, "name": name, "content": content,
                    "time_created": f"2024-05-06T09:{i:02d}:00"}) + "\n"
        for i, (role, name, content) in enumerate(lines, 1)
    ), encoding="utf-8")  # fmt: skip
    return path


def test_a_file_with_no_message_of_the_user_is_exit_2_naming_the_names_it_holds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bob = chat(tmp_path / "bob.jsonl", *[("user", "bob", f"I live in Porto, note {i}.") for i in range(40)],
               ("assistant", "assistant", "Noted!"))  # fmt: skip
    code, _, err = run_cli(capsys, "ingest", str(bob), "-u", "alice", *EPHEMERAL)
    assert code == 2 and "Traceback" not in err
    [line] = err.strip().splitlines()  # one clear line
    assert "no message of the 41 is from user 'alice'" in line and "'bob' (40)" in line
    assert "-u NAME" in line and "`name`" in line
    code, _, err = run_cli(capsys, "ingest", str(bob), "-u", "bob", *EPHEMERAL)  # the user it names: works
    assert code == 0 and "messages 41" in err, err


def test_a_mixed_file_says_how_many_messages_it_left_out_and_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mixed = chat(
        tmp_path / "mixed.jsonl",
        ("user", "alice", "I adopted a cat named Miso last week."),
        ("assistant", "assistant", "Lovely! What colour is she?"),
        ("user", "alice", "thanks!"),
        ("user", "bob", "I started a new job at Acme."),
        ("user", "bob", "My sister lives in Lyon."),
    )
    # Noise left out (offline_score_threshold 1; the shipped 0 keeps every user turn as a record) is said too
    noise = "op.info_filter_op.params.offline_score_threshold=1"
    code, _, err = run_cli(capsys, "ingest", str(mixed), "-u", "alice", *EPHEMERAL, noise)
    assert code == 0, err
    lines = err.strip().splitlines()
    at = lines.index("skipped 4 of the 5 messages, by reason:")
    assert lines[at + 1 :] == [
        "     2  not the user's (name 'bob')  e.g. m4, m5",
        "     1  not the user's (role 'assistant')  e.g. m2",
        "     1  noise: pleasantry  e.g. m3",
    ]
    assert lines[at - 1].startswith("add 1,") and "messages 5" in lines[at - 1]
    code, _, err = run_cli(capsys, "ingest", str(mixed), "-u", "alice", *EPHEMERAL)  # the shipped profile
    lines = err.strip().splitlines()
    at = lines.index("skipped 3 of the 5 messages, by reason:")
    assert code == 0 and lines[at - 1].startswith("add 2,") and "noise" not in err
