"""The one tokeniser of lexical search: words, Chinese characters and pairs, stop words out of queries."""

from __future__ import annotations

from flowmem.scoring.tokens import STOP_WORDS, index_text, query_terms, tokens


def test_words_are_lower_cased_runs_of_letters_and_digits() -> None:
    assert tokens("Caroline's NEW job at Acme-Labs, café 2023!") == [
        "caroline", "s", "new", "job", "at", "acme", "labs", "café", "2023",
    ]  # fmt: skip


def test_chinese_gives_characters_and_overlapping_pairs() -> None:
    assert tokens("我住在北京") == ["我", "住", "在", "北", "京", "我住", "住在", "在北", "北京"]
    assert tokens("iPhone手机") == ["iphone", "手", "机", "手机"]  # scripts split where they meet
    assert tokens("京") == ["京"]


def test_indexed_text_is_tokens_joined_by_spaces() -> None:
    assert index_text("Hello, 北京!") == "hello 北 京 北京"


def test_queries_leave_stop_words_out_and_keep_each_term_once() -> None:
    assert query_terms("Where do I live? Where?") == ["live"]
    assert query_terms("我住在哪里？") == ["住", "里", "我住", "住在"]
    assert query_terms("我的是什么") == []  # characters and pairs of characters that are all stop words
    assert query_terms("what is it") == []
    assert {"the", "的", "什么"} <= STOP_WORDS
