"""The recency operator: a query asking for the latest ("when did I last go hiking?") or the earliest ("the first
time I …") occurrence, read by structure — "last" as an adjective ("my last day", "the last train home"), in a
time expression ("last week") or as "at last" is not it."""

from __future__ import annotations

from datetime import datetime

import pytest

from flowmem.timeexpr import extract_all
from flowmem.timeexpr.query import QueryTimes, recency_in, words_to_match
from flowmem.timeexpr.recency import recency_ask

NOW = datetime(2025, 4, 5, 10)


def _ask(text: str) -> tuple[str, str] | None:
    found = recency_ask(text, [t.expression for t in extract_all(text, NOW)])
    return None if found is None else (found.order, found.words)


@pytest.mark.parametrize(
    ("query", "order", "words"),
    [
        ("when did I last go hiking?", "latest", "last"),
        ("When did I LAST go hiking?", "latest", "LAST"),
        ("when was I last at the dentist?", "latest", "last"),
        ("when did Eli last score?", "latest", "last"),
        ("when did my sister last visit?", "latest", "last"),
        ("I last saw Marcus when?", "latest", "last"),
        ("when was the last time I went hiking?", "latest", "last time"),
        ("what happened last time we met?", "latest", "last time"),
        ("what was the last book I read?", "latest", "last"),
        ("what did I do most recently?", "latest", "most recently"),
        ("what's the most recent trip we took?", "latest", "most recent"),
        ("the latest thing I bought", "latest", "latest"),
        ("what have I been reading lately?", "latest", "lately"),
        ("have I been to the gym recently?", "latest", "recently"),
        ("when did I first go hiking?", "earliest", "first"),
        ("when did we first meet?", "earliest", "first"),
        ("the first time I went climbing", "earliest", "first time"),
        ("when did Biscuit see snow for the first time?", "earliest", "first time"),
        ("what was the first concert we went to?", "earliest", "first"),
        ("the earliest trip we took", "earliest", "earliest"),
        ("我上次献血是什么时候？", "latest", "上次"),
        ("上一次去爬山是哪天", "latest", "上一次"),
        ("我最近一次去爬山是哪天", "latest", "最近一次"),
        ("最后一次见到外婆是什么时候", "latest", "最后一次"),
        ("最近我在忙什么", "latest", "最近"),
        ("我第一次去爬山是什么时候", "earliest", "第一次"),
        ("头一回见面在哪", "earliest", "头一回"),
        ("我最早养的宠物叫什么", "earliest", "最早"),
    ],
)
def test_the_operator_is_found(query: str, order: str, words: str) -> None:
    assert _ask(query) == (order, words)


@pytest.mark.parametrize(
    "query",
    [
        "my last day at Dell is March 19",  # an adjective of a noun
        "when was my last shift at the cafe?",
        "what did I do last week?",  # a time expression
        "did we have fun last Christmas?",
        "what did I do the last weekend of March?",
        "did I see her last Tuesday?",
        "when is the last train home?",
        "what did I eat at the last party?",
        "at last, a day off",  # "finally"
        "how long did the battery last?",  # the verb
        "did it last long?",
        "they last two hours",
        "my latest haircut",  # an adjective: its word is what the memory may say
        "What did Mel and her kids paint in their latest project in July 2023?",
        "my earliest memory of grandma",
        "whats the earliest flight",
        "send it by Friday at the latest",  # a deadline
        "at the latest so I can plan",
        "at the earliest next month",
        "First day at Lumen Health done",
        "at first I hated it",
        "first of all, where do I live?",
        "where do I live?",
        "我在老公司最后一天上班是几号？",  # 最后一天: the last day, an adjective
        "我第一天上班",
        "离我家最近的超市在哪",  # 最近的: nearest
        "上周我做了什么",
    ],
)
def test_not_the_operator(query: str) -> None:
    assert _ask(query) is None


def test_word_matching_leaves_out_the_operator_and_the_time_words() -> None:
    known = QueryTimes.of("when did I last go hiking last summer?", NOW)
    assert known.recency is not None and known.recency.order == "latest"
    assert words_to_match(known.text, NOW, known).split() == ["when", "did", "I", "go", "hiking", "?"]
    assert words_to_match("我上次献血是什么时候？", NOW, None) == "我  献血是什么时候？"
    assert words_to_match("my last day at Dell", NOW, None) == "my last day at Dell"  # no operator: kept


def test_the_operator_is_read_once_a_run_and_anew_for_another_text() -> None:
    known = QueryTimes.of("when did I last go hiking?", NOW)
    assert recency_in("when did I last go hiking?", NOW, known) is known.recency
    other = recency_in("when did I first go hiking?", NOW, known)
    assert other is not None and other.order == "earliest"
    assert QueryTimes.of("where do I live?", NOW).recency is None
