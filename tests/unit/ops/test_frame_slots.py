"""Issue 23 point 2: a fact stated in words no slot pattern knows still changes, when it holds another name right
after the same words as a new slot value ("Twelve-hour day at Harbor Logistics" before "First day at Quill & Co"),
through the default write path (:mod:`flowmem.scoring.frames`)."""

from __future__ import annotations

import asyncio

from tests.unit.ops.chat import said
from tests.unit.ops.test_people_slots import _status


def test_an_older_name_in_the_same_words_as_a_new_employer_is_expired() -> None:
    memories = asyncio.run(
        said(
            [
                ("2025-02-03T19:00:00", "Twelve-hour day at Harbor Logistics again, inventory week"),
                ("2025-02-05T08:00:00", "Harbor Logistics canteen does a decent curry though"),
                ("2025-03-02T21:00:00", "First day at Quill & Co tomorrow, so nervous"),
            ]
        )
    )
    [old] = [m for m in memories if "twelve-hour" in m.content.lower()]
    assert old.status == "expired" and old.metadata["slots"] == {"employer": "harbor logistics"}
    assert _status(memories, "canteen") == ["valid"]  # the name in other words states no slot
    assert _status(memories, "quill") == ["valid"]


def test_an_older_chinese_statement_of_where_one_works_is_expired_by_a_new_employer() -> None:
    memories = asyncio.run(
        said(
            [
                ("2025-02-03T19:00:00", "我在华为做硬件，天天加班"),
                ("2025-02-05T08:00:00", "我在健身房做有氧，半小时"),  # 做 alone: a workout, no employer
                ("2025-03-02T21:00:00", "跳槽去小米了"),
            ]
        )
    )
    assert _status(memories, "华为") == ["expired"]
    assert _status(memories, "健身房") == ["valid"]
    assert _status(memories, "小米") == ["valid"]
