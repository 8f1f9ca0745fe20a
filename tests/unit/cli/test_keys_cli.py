"""`flowmem keys`: the catalogue of context keys with their types, and the ops that write and read each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.cli.test_cli import flowmem, run_cli

PLUGIN = '''
from flowmem import Op, OpContext, register_op
from flowmem.keys import MEMORIES, Key, define_key

MOOD: Key[float] = define_key("mood_score", float, "how the user feels, -1 to 1")


@register_op
class MoodOp(Op):
    """Score the mood of the memories."""

    reads = (MEMORIES,)
    writes = (MOOD,)

    async def execute(self, ctx: OpContext) -> None:
        ctx[MOOD] = 0.0
'''


def test_keys_lists_types_writers_and_readers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "keys")
    assert code == 0
    assert "memories: list[Memory] — the memories a flow returns, best first" in out
    # One type a key: read_message_op's Messages have a key of their own (personal_context renames the output).
    assert "context_messages: list[dict[str, str]] — the messages for a chat call" in out
    assert "recent_messages: list[Message] — the user's recent messages not yet memorized" in out
    assert "    written by: read_message_op · read by: -" in out
    assert "    written by: context_assemble_op · read by: -" in out
    code, out, _ = run_cli(capsys, "keys", "--json")
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["user_id"]["input"] is True and rows["user_id"]["type"] == "str"
    assert "retrieve_memory_op" in rows["memories"]["written_by"]
    assert "fuse_rerank_op" in rows["extracted_time"]["read_by"]


def test_a_plugin_key_is_listed(tmp_path: Path) -> None:
    plugin = tmp_path / "mood_plugin.py"
    plugin.write_text(PLUGIN)
    done = flowmem("keys", "--json", "--plugin", str(plugin))
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["mood_score"] == {
        "name": "mood_score",
        "type": "float",
        "doc": "how the user feels, -1 to 1",
        "input": False,
        "written_by": ["mood_op"],
        "read_by": [],
    }
    assert "mood_op" in rows["memories"]["read_by"]
