"""A message that tells of something done, without a date, is about the day it was told (reports_done)."""

from __future__ import annotations

from datetime import datetime

import pytest

from flowmem.schema.memory import Message
from flowmem.scoring.derive import memory_from_message
from flowmem.timeexpr.tense import reports_done


@pytest.mark.parametrize(
    "text",
    [
        "signed the lease!! fremont it is",
        "Dentist done, just a small filling",
        "cancelled the gym membership. honestly I've been running outside for two weeks",  # one sentence is enough
        "I went climbing with Marcus",
        "终于搬完家了累死",
        "把脚崴了",
        "去医院拍了片子，没骨折，韧带拉伤，要养三周",  # clause by clause: the plan is another clause's
    ],
)
def test_something_done(text: str) -> None:
    assert reports_done(text)


@pytest.mark.parametrize(
    "text",
    [
        "I was tired",  # a state
        "I've been vegetarian for about six years",  # a duration
        "在一家游戏公司做测试，已经三年了",
        "I'm going to sign the lease",  # a plan
        "我明天要去体检了",
        "did you sign it?",  # a question
        "I live in Austin",
        "我花生过敏",  # 过 of 过敏 is no aspect
    ],
)
def test_not_something_done(text: str) -> None:
    assert not reports_done(text)


def test_a_done_thing_without_a_date_happened_the_day_it_was_told() -> None:
    said = datetime(2025, 5, 18, 12, 10)
    message = Message(message_id="m1", role="user", content="signed the lease!!", time_created=said)
    memory = memory_from_message(message, workspace_id="w", target="u")
    assert memory.event_time is not None and memory.event_time.date() == said.date()
    planned = Message(message_id="m2", role="user", content="signing the lease soon", time_created=said)
    assert memory_from_message(planned, workspace_id="w", target="u").event_time is None
