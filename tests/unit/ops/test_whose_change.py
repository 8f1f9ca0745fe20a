"""Session 26: a change is of the person it is said of. Generated pairs (flowmem/eval/data/generated-2026-11-28) showed
someone else's change expiring the speaker's fact ("Leah lives in Austin now" ended "I live in Leeds"; "Leah goes to
yoga on Thursdays now" even rewrote "I go to yoga on Mondays" into a Thursday the speaker never said), and a change
opened by a discourse marker ("ok so Leah moved to Denver") not read as Leah's at all."""

from __future__ import annotations

import asyncio

import pytest

from flowmem.scoring.slots import DEFAULT_RULES
from tests.unit.ops.chat import said, status_after


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I live in Leeds", "Ok so Leah lives in Austin now"),
        ("I work at Acme", "Btw Leah works at Lumen Health now"),
        ("I drive a Corolla", "Leah drives a Tesla now"),
        ("My sister Leah's vegetarian", "I'm not vegetarian anymore"),
        ("I work at Acme", "Btw first day at Globex for her, as of Monday"),
    ],
)
def test_another_persons_change_leaves_the_speakers_fact(old: str, new: str) -> None:
    assert status_after(old, new, old) == ["valid"]


def test_another_persons_weekly_plan_neither_ends_nor_rewrites_the_speakers() -> None:
    memories = asyncio.run(
        said(
            [
                ("2025-03-03T09:00:00", "I go to yoga on Mondays"),
                ("2025-04-07T09:00:00", "Leah goes to yoga on Thursdays now"),
            ]
        )
    )
    assert [m.status for m in memories if m.content == "I go to yoga on Mondays"] == ["valid"]
    assert not any(m.content.startswith("I go to yoga on Thursdays") for m in memories)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My sister Leah lives in Bristol", "Ok so Leah moved to Denver, as of Monday"),
        ("My husband Tom lives in Leeds", "btw Tom just moved to Denver last week"),
        ("I go to yoga on Mondays", "Yoga moved to Thursdays"),  # of yoga, which the older words name
        ("I'm a teacher", "Btw I'm a sales rep now"),
        ("I'm a nurse", "I became a paramedic last week"),
        ("My sister Leah's a teacher", "ok so Leah became a paramedic"),
        # a doer acting on the speaker's or another's thing is not whom the value is of
        ("Eli's soccer practice is Wednesdays 5pm at Lakeview fields", "coach moved Eli's practice to Thursdays"),
        ("She's put me on lisinopril, 10mg once a day", "numbers are better so she bumped the lisinopril up to 20mg"),
    ],
)
def test_a_change_of_the_same_person_still_expires(old: str, new: str) -> None:
    assert status_after(old, new, old) == ["expired"]


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Ok so Leah lives in Austin now", {"residence@leah": "austin"}),
        ("Update: Priya got a job at Monzo", {"employer@priya": "monzo"}),
        ("Btw I moved to Denver", {"residence": "denver"}),  # "Btw" is no one's name
        ("Tom's a sales rep now", {"job_title@tom": "sales rep"}),
        ("I became a paramedic", {"job_title": "paramedic"}),
        ("First day at Globex for her", {}),  # hers, not the speaker's
    ],
)
def test_slots_read_past_a_discourse_marker_and_of_whom(text: str, slots: dict[str, str]) -> None:
    assert DEFAULT_RULES.slots_of(text) == slots


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("我住在杭州", "对了，小丽已经在深圳定居了"),  # 小丽's, after a discourse marker
        ("我是护士", "跟你说，小丽现在是销售了"),
        ("我每周二去练瑜伽", "跟你说，小丽现在每周四去练瑜伽"),
        ("我姐小丽吃素", "跟你说，我不吃素了"),  # the speaker's own: not the sister's
        ("我每周一去练瑜伽", "对了，小丽的瑜伽课改到周五了"),  # 小丽's class
    ],
)
def test_another_persons_change_leaves_the_speakers_fact_in_chinese(old: str, new: str) -> None:
    assert status_after(old, new, old) == ["valid"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("我姐小丽住在成都", "小丽搬到深圳了"),  # 小丽 is 我姐小丽
        ("我老公阿强在华为上班", "对了，阿强现在在阿里上班"),
        ("我姐小丽每周二去练瑜伽", "小丽现在每周四去练瑜伽"),
        ("我住在成都", "对了，我已经在深圳定居了"),  # settled: where one lives
        ("我养了一只猫叫团团", "我的猫团团走了"),  # a pet gone is dead
    ],
)
def test_a_change_of_the_same_person_expires_in_chinese(old: str, new: str) -> None:
    assert status_after(old, new, old) == ["expired"]


def _valid_after(texts: list[str]) -> list[str]:
    at = ["2025-03-03T09:00:00", "2025-04-07T09:00:00", "2025-05-12T09:00:00"]
    return [m.content for m in asyncio.run(said(list(zip(at, texts, strict=False)))) if m.status == "valid"]


def test_a_pronoun_after_a_discourse_marker_or_as_an_owner_stands_for_the_person() -> None:
    valid = _valid_after(["My sister Leah lives in York", "Long week at work. Anyway she moved to Denver on Saturday"])
    assert "My sister Leah lives in York" not in valid
    valid = _valid_after(["My husband Tom works at Acme", "His new job is at Stripe"])
    assert "My husband Tom works at Acme" not in valid


def test_what_else_a_changed_statement_said_stays_said_of_its_person() -> None:
    valid = _valid_after(["My sister Leah lives in Leeds and works at Acme", "She moved to Austin last week"])
    assert "My sister Leah works at Acme" in valid, valid
    valid = _valid_after(["I work at Dell and play tennis on Sundays", "I left Dell for Lumen Health"])
    assert any("tennis" in text and "Dell" not in text for text in valid), valid
    assert not any("work at Dell" in text for text in valid), valid


@pytest.mark.parametrize(
    ("old", "new", "status"),
    [
        ("I work at Dell", "Leah quit Dell", "valid"),  # her ending, not the speaker's
        ("I smoke", "Tom quit smoking", "valid"),
        ("I'm 28 weeks pregnant", "baby girl arrived on Tuesday, 7lb 2oz!", "expired"),  # ends what it does not name
        ("I have a cat called Luna", "Luna died last night", "expired"),
        ("My sister Leah works at Dell and plays tennis on Sundays", "Leah left Dell for Lumen Health", "expired"),
    ],
)
def test_an_ending_is_of_whom_it_is_said(old: str, new: str, status: str) -> None:
    assert status_after(old, new, old) == [status]


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("no longer at Acme, I'm at Globex now", {"acme"}),
        ("I'm not with Vodafone any more", {"vodafone"}),
        ("I am no longer working for Deloitte.", {"deloitte"}),
        ("I'm not at home, at work", set()),  # no name: nothing ended
    ],
)
def test_where_one_no_longer_is_ends_it(text: str, ended: set[str]) -> None:
    assert DEFAULT_RULES.ended(text) == ended


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("My sister Leah's vegetarian", {"diet@leah": "vegetarian"}),  # 's before a state is "is"
        ("Tom's married", {"relationship_status@tom": "married"}),
    ],
)
def test_a_persons_state_said_with_s(text: str, slots: dict[str, str]) -> None:
    assert DEFAULT_RULES.slots_of(text) == slots


def test_a_persons_diet_changes_by_their_name() -> None:
    assert status_after("My sister Leah's vegetarian", "Ok so Leah eats meat again", "vegetarian") == ["expired"]
