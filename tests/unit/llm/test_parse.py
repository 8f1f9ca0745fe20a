"""Reading JSON and per-item scores out of LLM replies: the one parser every scoring op uses."""

from __future__ import annotations

import pytest

from flowmem.llm.parse import parse_indexed_scores, parse_json


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure! ```json\n{"a": 1,}\n``` hope that helps', {"a": 1}),
        ("Here: [1, 2] and more", [1, 2]),
        ("no json here", None),
        ("", None),
    ],
)
def test_parse_json_finds_the_first_value(reply: str, value: object) -> None:
    assert parse_json(reply) == value


@pytest.mark.parametrize(
    "reply",
    [
        '{"0": 0.9, "1": 0.2}',
        '{"scores": {"0": 0.9, "1": 0.2}}',
        '[{"index": 0, "score": 0.9}, {"id": 1, "relevance": 0.2}]',
        "[0.9, 0.2]",
    ],
)
def test_every_reply_shape_gives_the_same_scores(reply: str) -> None:
    assert parse_indexed_scores(reply, 2, low=0.0, high=1.0) == ({0: 0.9, 1: 0.2}, 0)


def test_unusable_entries_are_counted_and_slight_overshoots_clamped() -> None:
    reply = '{"0": 1.02, "1": "high", "7": 0.5, "2": 40}'
    assert parse_indexed_scores(reply, 3, low=0.0, high=1.0, slack=0.05) == ({0: 1.0}, 3)


def test_integer_scales_use_the_same_reader() -> None:
    assert parse_indexed_scores('{"0": 3, "1": 0, "2": 4}', 3, low=0, high=3) == ({0: 3.0, 1: 0.0}, 1)
    assert parse_indexed_scores("nothing", 3, low=0, high=3) == ({}, 0)
