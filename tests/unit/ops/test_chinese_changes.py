"""Issue 23 point 2, session 21: changes said in colloquial Chinese — out of a workplace (从华为出来了，现在在小米),
no longer at a named place (不在新东方干了), a school named by its kind (现在在育才小学), a home rented or moved to
(在天通苑租房, 搬来北京), a pet named after its kind (养了一只柯基叫豆豆), a bare amount after 涨到 — expire the older
statement; the same said of someone outside the home (朋友家房租, "my mate's rent") does not."""

from __future__ import annotations

import pytest

from tests.unit.ops.chat import status_after

ENDED = [
    ("我老公在华为上班", "老公从华为出来了，现在在小米", "华为上班"),
    ("我们家在天通苑租房", "刚搬完家，新家在回龙观", "天通苑"),
    ("我女儿在实验小学读二年级", "女儿转学了，现在在育才小学", "实验小学"),
    ("我养了一只柯基叫豆豆", "豆豆上周走了，难受", "柯基"),
    ("我在新东方教英语", "不在新东方干了，自己开了个工作室", "教英语"),
    ("我妈住在老家", "我妈搬来北京跟我们一起住了", "老家"),
    ("房租每个月4500", "房租下个月开始涨到4800", "4500"),
]
KEPT = [
    ("我在字节上班", "我老公现在在小米上班", "字节"),
    ("我女儿在实验小学读书", "我侄女在育才小学", "实验小学"),
    ("我在新东方教英语", "我同事不在新东方干了", "教英语"),
    ("房租每个月4500", "朋友家房租涨到4800了", "4500"),
    ("rent's £950 a month", "my mate's rent went up to £1000", "£950"),
]


@pytest.mark.parametrize(("old", "new", "words"), ENDED)
def test_a_change_said_in_colloquial_chinese_expires_the_old(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["expired"]


@pytest.mark.parametrize(("old", "new", "words"), KEPT)
def test_the_same_said_of_someone_else_changes_nothing(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["valid"]


# Session 25: a thing said with a measure word after a switch (换了辆理想) is of the kind its measure word says, and
# replaces the thing counted with the same measure word before; colloquial kin (我爸, 我姐) keep people apart.
MEASURED = [
    ("我老公开的是一辆大众", "我老公换了辆理想", "大众"),
    ("我家住在一套两居室里", "换了套三居室，终于有书房了", "两居室"),
]
MEASURED_KEPT = [
    ("我爸开的是一辆大众", "我老公换了辆理想", "大众"),  # another person's car
    ("我养了一只布偶猫", "我换了辆电动车", "布偶猫"),  # another kind of thing
    ("我家橘猫叫大黄", "换了家医院，现在去安安宠物医院", "橘猫"),  # 我家 is "my home", not a count of 家
]


@pytest.mark.parametrize(("old", "new", "words"), MEASURED)
def test_a_switch_to_a_thing_counted_alike_replaces_it(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["expired"]


@pytest.mark.parametrize(("old", "new", "words"), MEASURED_KEPT)
def test_another_persons_or_another_kind_of_thing_stays(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["valid"]
