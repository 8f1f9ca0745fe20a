"""Relation words: a memory naming a relation is keyed with the relation's other words, in both languages."""

from __future__ import annotations

from flowmem.schema.memory import Memory
from flowmem.scoring.keys import offline_key
from flowmem.scoring.relations import RELATION_GROUPS, relation_words, relations_named


def test_a_relation_brings_its_other_words_in_both_languages() -> None:
    manager = ["boss", "supervisor", "老板", "上司", "经理", "领导"]
    assert relation_words("Dana is Alice's manager at Brightledger.") == manager
    grandma = relation_words("Alice 的外婆今年八十五岁")
    assert "grandma" in grandma and "grandmother" in grandma and "外婆" not in grandma  # said already
    assert "妹妹" in relation_words("Alice's younger sister Grace is a nurse.")


def test_plurals_and_possessives_count_and_parts_of_words_do_not() -> None:
    assert "boss" in relation_words("Two of my managers left.")
    assert "父母" in relation_words("Her parents' house is in Fremont.")
    assert relation_words("It took a moment; the mummy exhibit was great.") == []  # not "mom", not "mum"
    assert relation_words("We went hiking.") == []


def test_mom_and_dad_ask_about_the_parents_but_a_mother_is_not_both() -> None:
    assert "mom" in relation_words("Alice's parents live in Fremont.")
    assert "parents" not in relation_words("Alice's mother called.")


def test_each_word_is_said_once_even_when_several_relations_share_it() -> None:
    words = relation_words("My mom and my grandmother cooked.")
    assert len(words) == len(set(words))
    for group in RELATION_GROUPS:
        assert len(group) == len(set(group)), group


def test_the_expanded_key_carries_them() -> None:
    key = offline_key(Memory(workspace_id="w", target="alice", content="Dana is Alice's manager."))
    assert key == "manager dana; boss supervisor 老板 上司 经理 领导"  # "Dana is my manager": the role's attribute


def test_colloquial_chinese_kin_is_named_and_a_siblings_spouse_is_not_the_sibling() -> None:
    assert relations_named("我爸开的是一辆大众") == {"father"}
    assert relations_named("我姐在上海工作") == {"sister"}
    assert relations_named("老妈搬来北京了") == {"mother"}
    assert relations_named("我姐夫在上海工作") == frozenset()
    assert relations_named("我弟媳在银行上班") == frozenset()
