"""One rule for "the same content", shared by retrieval de-duplication and the write path."""

from __future__ import annotations

from flowmem.scoring.same_content import content_key


def test_case_punctuation_and_spacing_do_not_make_content_different() -> None:
    assert content_key("Alice likes tea.") == content_key("alice  likes TEA")
    assert content_key("我喜欢喝茶。") == content_key("我喜欢喝茶")


def test_a_different_word_or_number_does() -> None:
    assert content_key("Alice likes tea") != content_key("Alice likes green tea")
    assert content_key("I run 5 km") != content_key("I run 10 km")
