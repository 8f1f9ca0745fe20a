"""Session 25: a fact whose value is the thing that ended goes whole with it. "I'm staying in a student hall called
Murray Hall for now", then "moved out of Murray Hall": the residence was the hall, so that clause goes — not a broken
"I'm staying in a student called for now" left current — while the message's other clauses stay."""

from __future__ import annotations

import asyncio

from tests.unit.ops.chat import said


def test_a_fact_whose_value_ended_goes_whole_not_as_a_broken_clause() -> None:
    memories = asyncio.run(
        said(
            [
                ("2024-09-09T10:00:00", "I've just arrived in Glasgow for my MSc. I'm staying in a student hall called "
                 "Murray Hall for now."),
                ("2024-11-30T10:00:00", "Big news: I've moved out of Murray Hall into a shared flat in Partick."),
            ]
        )
    )  # fmt: skip
    valid = [m.content for m in memories if m.status == "valid"]
    assert not any("student" in text and "Murray" not in text for text in valid), valid
    assert any("MSc" in text and "Murray" not in text for text in valid), valid
