"""Issue 23 point 2, session 25: a change said with a pronoun ("he got a transfer", 他调到杭州了) is read as said of
the person the pronoun stands for — the last one the chat spoke of whom it can stand for, by name or by relation alone
("my dad", 我男朋友) — so it supersedes that person's older fact; a pronoun that cannot stand for them (he for my
sister, she for my parents) changes nothing."""

from __future__ import annotations

import pytest

from tests.unit.ops.chat import status_after

ENDED = [
    ("我男朋友在上海工作", "他调到杭州了，我们周末见", "上海"),
    ("my dad lives in Cork", "Really well. he moved in with us in Dublin", "Cork"),
    ("my sister lives in Rome", "she moved to Milan in March", "Rome"),
    ("我妈住在老家", "她搬来北京跟我们一起住了", "老家"),
]
KEPT = [
    ("my sister lives in Rome", "he moved to Milan in March", "Rome"),  # "he" is not my sister
    ("我姐在上海工作", "他调到杭州了", "上海"),  # 他 is not 我姐
    ("my parents live in Cork", "she moved to Dublin", "Cork"),  # "she" is not both of them
]


@pytest.mark.parametrize(("old", "new", "words"), ENDED)
def test_a_change_said_with_a_pronoun_supersedes_its_persons_fact(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["expired"]


@pytest.mark.parametrize(("old", "new", "words"), KEPT)
def test_a_pronoun_that_cannot_stand_for_them_changes_nothing(old: str, new: str, words: str) -> None:
    assert status_after(old, new, words) == ["valid"]
