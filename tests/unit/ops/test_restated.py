"""Issue 23 point 2: an attribute restated with another value expires the older statement, however the attribute is
called — "my X is V" of any X (:mod:`flowmem.scoring.attributes`), and a near-duplicate that says another number
(:func:`ops.contra_repeat_op.restates`) — through the default write path; another fact of the same shape, and events,
are kept."""

from __future__ import annotations

import asyncio

import pytest

from tests.unit.ops.chat import said
from tests.unit.ops.test_people_slots import _status


@pytest.mark.parametrize(
    ("old", "new", "was", "now"),
    [
        ("my GP is Dr Osei", "my GP is Dr Lang, registered last week after the move", "osei", "lang"),
        ("my commute is 45 minutes on the train", "my commute is a 10 minute walk!", "45", "walk"),
        ("our WiFi password is sunflower22", "our wifi password is bluebell99 now", "sunflower", "bluebell"),
        ("我的微信名叫小鱼", "我的微信名叫大鱼了", "小鱼", "大鱼"),
        ("我们公司在陆家嘴", "我们公司在张江，地铁二号线", "陆家嘴", "张江"),
        ("I'm in year 12 at Holmwood", "I'm in year 13 at Holmwood, last year of school", "12", "13"),
        ("我女儿今年上三年级", "我女儿今年上四年级了", "三年级", "四年级"),
    ],
)
def test_the_same_attribute_restated_expires_the_older_statement(old: str, new: str, was: str, now: str) -> None:
    memories = asyncio.run(said([("2025-03-01T09:00:00", old), ("2025-03-04T09:00:00", new)]))
    assert _status(memories, was) == ["expired"]
    assert _status(memories, now) == ["valid"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("my daughter is 6", "my son is 4"),  # two people: not an attribute of the speaker
        ("我们家狗叫豆豆", "我们家猫叫花花"),  # two attributes
        ("ran 5k with Marcus this morning", "ran 10k with Marcus this morning"),  # two events, not a state
        ("my boss is a nightmare", "my boss is Karen"),  # a role is someone named, not what is said of them
        ("my point is that we should go", "my point is that we should sell"),  # a noun of talk
    ],
)
def test_another_fact_of_the_same_shape_is_kept(first: str, second: str) -> None:
    memories = asyncio.run(said([("2025-03-01T09:00:00", first), ("2025-03-04T09:00:00", second)]))
    assert [m.status for m in memories if m.content == first] == ["valid"]
    assert [m.status for m in memories if m.content == second] == ["valid"]


def test_a_plan_whose_time_has_come_stays_what_was_planned() -> None:
    memories = asyncio.run(
        said(
            [
                ("2025-01-15T21:00:00", "我现在 based 在上海，做 consulting"),
                ("2025-02-10T20:00:00", "下个月要 relocate 去 Singapore 了，公司 internal transfer"),
                ("2025-03-09T22:00:00", "已经到新加坡了 暂时住 Tiong Bahru 的 serviced apartment，很 chill"),
            ]
        )
    )
    assert _status(memories, "relocate") == ["valid"]  # the plan: it happened, and stays what was planned
    assert _status(memories, "tiong bahru") == ["valid"]
