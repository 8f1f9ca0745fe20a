"""Issue 23 point 2, session 21: a change of work or home said in other structures — of someone named ("Priya works for
Deloitte", then "Priya's jumped ship to PwC"), a post without its article, a home left for another ("moved out of
halls into a house") — through the default write path; and what is said of another person is not the user's."""

from __future__ import annotations

import asyncio

import pytest

from tests.unit.ops.chat import said, status_after
from tests.unit.ops.test_people_slots import _status


@pytest.mark.parametrize(
    ("old", "new", "gone", "kept"),
    [
        ("Priya works for Deloitte in audit", "Priya's jumped ship to PwC", "deloitte", None),
        ("Tom is doing his apprenticeship with Halls Electrical", "Tom got poached by Sparks Ltd, better money",
         "halls", None),
        ("Ahmed drives a taxi for Uber", "Ahmed's driving for Bolt now, better rates", "uber", None),
        ("I work nights at the Amazon warehouse", "finally off nights, got a day job at Screwfix", "amazon", None),
        ("me and the kids live in a 2 bed in Walthamstow", "we're in our new place in Chingford now, 3 bed finally",
         "walthamstow", None),
        ("I'm in halls at Cardiff Uni", "moved out of halls into a house on Cathays Terrace", "in halls",
         "Cardiff Uni"),
    ],
)  # fmt: skip
def test_a_change_of_work_or_home_expires_the_old_statement(old: str, new: str, gone: str, kept: str | None) -> None:
    assert status_after(old, new, gone) == ["expired"]
    if kept is not None:  # what else the old statement said stays current
        assert "valid" in status_after(old, new, kept)


def test_someone_elses_new_job_is_not_the_users() -> None:
    memories = asyncio.run(
        said(
            [
                ("2025-03-03T09:00:00", "I work at Deloitte as an auditor"),
                ("2025-04-07T09:00:00", "Tom got poached by Sparks Ltd, better money"),
            ]
        )
    )
    assert _status(memories, "deloitte") == ["valid"]
    [tom] = [m for m in memories if "sparks" in m.content.lower()]
    assert tom.metadata["slots"] == {"employer@tom": "sparks ltd"}


# Session 25: whom one lives with is its own fact ("living_with"), not where: a new household supersedes the old
# (跟爸妈住在一起, then 搬出来自己住了; "staying with my mum", then "living at my dad's now"), and leaves where one
# lives.
@pytest.mark.parametrize(
    ("old", "new", "gone"),
    [
        ("我跟爸妈住在一起", "我搬出来自己住了，租了个一居室", "跟爸妈"),
        ("I'm staying with my mum at the moment", "living at my dad's now", "my mum"),
    ],
)
def test_a_new_household_supersedes_the_old(old: str, new: str, gone: str) -> None:
    assert status_after(old, new, gone) == ["expired"]


def test_a_household_leaves_where_one_lives() -> None:
    assert status_after("我住在朝阳", "我跟爸妈住在一起", "朝阳") == ["valid"]


def test_whom_one_lives_with_is_stored_as_said() -> None:
    from flowmem.scoring.slots import DEFAULT_RULES

    assert DEFAULT_RULES.slots_of("我和男朋友住在一起") == {"living_with": "男朋友"}
