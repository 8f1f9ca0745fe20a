"""A state denied before and said to hold now ends the denial, and only the denial."""

from __future__ import annotations

import pytest

from flowmem.scoring.affirmed import affirmed, denial
from flowmem.scoring.change import read_changes


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I don't have a car", "bought a car! a little Fiesta"),
        ("I don't work Fridays", "I work Fridays now"),
        ("我不吃辣", "现在能吃辣了"),
        ("我不喝酒", "最近开始喝点红酒"),  # 酒 in 红酒: the object meets
        ("我没有车", "买车了，比亚迪"),
        ("we don't have a dog yet", "adopted a dog from the shelter!"),
    ],
)
def test_a_doing_said_to_hold_now_ends_its_denial(old: str, new: str) -> None:
    said = affirmed(new)
    assert said is not None and denial(old, said) is not None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I don't eat gluten", "started eating meat again"),  # another object
        ("I eat meat on Sundays", "started eating meat again"),  # never denied
        ("I don't have a garden", "bought a car!"),
    ],
)
def test_what_was_not_denied_or_was_another_thing_is_not_ended(old: str, new: str) -> None:
    said = affirmed(new)
    assert said is not None and denial(old, said) is None


@pytest.mark.parametrize("said", ["if I bought a car I'd drive to work", "thinking about getting a dog", "我想买车"])
def test_a_wish_or_a_supposition_affirms_nothing(said: str) -> None:
    assert affirmed(said) is None


def test_the_change_read_from_a_message_carries_what_it_affirms() -> None:
    [change] = [c for c in read_changes("bought a car! a little Fiesta") if c.affirmed is not None]
    assert change.kind == "affirmed" and change.affirmed is not None and change.affirmed.verb == "hav"  # have's base
