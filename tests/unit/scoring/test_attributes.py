"""A copular attribute of the speaker (:mod:`flowmem.scoring.attributes`), bare numbers in ``differ``, and what tells a
state (:func:`flowmem.scoring.aspect.tells_state`)."""

from __future__ import annotations

import pytest

from flowmem.scoring.aspect import tells_state
from flowmem.scoring.attributes import attribute_slots
from flowmem.scoring.values import differ


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("my GP is Dr Osei", {"attr:gp": "dr osei"}),
        ("my favourite band is probably Fontaines DC", {"attr:favourite band": "fontaines dc"}),
        ("my commute is a 10 minute walk!", {"attr:commute": "10 minute walk"}),
        ("我现在的医生是王医生，搬家后换的", {"attr:医生": "王"}),  # a name with its title: the surname
        ("我的微信名叫大鱼了", {"attr:微信名": "大鱼"}),
        ("我们公司在张江，地铁二号线", {"attr:公司": "张江"}),
        ("公司在国贸，坐一号线二十分钟就到", {"attr:公司": "国贸"}),  # the owner left out
        ("说一下：公司上个月搬到望京了", {"attr:公司": "望京"}),  # where the thing went
        ("他在上班", {}),
        ("大家在开会", {}),
        ("我们搬到徐汇了", {}),  # the speaker: a residence, not a thing's place
        # not an attribute of the speaker, or not a value
        ("my daughter is 6", {}),
        ("my boss is a nightmare", {}),
        ("my back is killing me", {}),
        ("my point is that we should go", {}),
        ("my kids are at school", {}),
        ("is my GP Dr Osei?", {}),
        ("我妈在医院", {}),
        ("我们在北京", {}),
        ("我的意思是不去了", {}),
        ("我今天在家", {}),
        # not 姐现 (a noun cut inside 现在): a person's place is no attribute of the speaker
        ("我姐现在在上海上班了", {}),
        ("Hannah's left. I report to Craig Bell now.", {"attr:manager": "craig bell"}),  # a role said by its verb
        ("I report to the board", {}),
        # one of the speaker's people's attribute, theirs
        ("Leo's teacher is Miss Patel", {"attr:teacher@leo": "miss patel"}),
        ("my son's coach is Dev", {"attr:coach@son": "dev"}),
        ("It's my birthday today", {}),
        # a one-holder role said the other way round
        ("Rob's my manager, he's great", {"attr:manager": "rob"}),
        ("Dr Osei is our new GP", {"attr:gp": "dr osei"}),
        # a Chinese role said without its owner, by its surname, or by its verb
        ("分班结果出来了，一年级二班，班主任姓何。", {"attr:班主任": "何"}),
        ("豆豆转到育才小学了，班主任是宋老师。", {"attr:班主任": "宋"}),
        ("新保姆找到了，姓李", {}),  # the role is in another clause
        ("老板是个好人", {}),  # what they are like, not who
        ("陈工被调去东莞工厂了，我们组现在归刘总管。", {"attr:领导": "刘"}),
        ("陈老师生孩子去了，朵朵现在跟王老师学", {"attr:老师": "王"}),
    ],
)
def test_an_attribute_is_read_from_a_possessed_noun_and_a_copula(text: str, slots: dict[str, str]) -> None:
    assert attribute_slots(text) == slots


def test_bare_numbers_that_differ_make_two_statements_no_paraphrase() -> None:
    assert differ("I'm in year 12 at Holmwood", "I'm in year 13 at Holmwood")
    assert differ("我女儿今年上三年级", "我女儿今年上四年级了")
    assert not differ("I went to the gym", "I went to the gym today")
    assert not differ("一起去吃饭", "一下去吃饭")  # 一 inside a word is no number


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("I take sertraline 50mg", True),
        ("我女儿今年上四年级了", True),  # a clause-final 了: a state reached
        ("I ran 10k", False),
        ("我跑了十公里", False),
        ("I'll be in year 13", False),
    ],
)
def test_a_state_is_told_without_past_or_future_wording(text: str, state: bool) -> None:
    assert tells_state(text) is state
