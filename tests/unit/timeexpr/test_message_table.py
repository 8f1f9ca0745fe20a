"""The labelled table of message (and question) event times: every case right, and every kind present."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.unit.timeexpr.message_cases import (
    ALL,
    CLAUSES,
    CLAUSES_HELD_OUT,
    EN,
    KNOWN_MISSES,
    ZH,
    MessageCase,
    expected_range,
    is_right,
    resolved,
    resolved_all,
)


def _param(case: MessageCase) -> object:
    reason = KNOWN_MISSES.get(case.text)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(case, marks=marks, id=case.id)


@pytest.mark.parametrize("case", [_param(case) for case in ALL])
def test_case(case: MessageCase) -> None:
    specs = case.expected.split(" | ")
    assert resolved(case) == expected_range(specs[0])  # what the message's memory stores: its first time
    if len(specs) > 1:
        assert resolved_all(case) == [expected_range(spec) for spec in specs]
    assert is_right(case)


def test_the_clause_table_is_bilingual_and_has_a_held_out_third() -> None:
    clauses = CLAUSES + CLAUSES_HELD_OUT
    assert len(clauses) >= 20 and len(CLAUSES_HELD_OUT) >= len(clauses) // 3
    assert sum(case.kind == "zh-clauses" for case in clauses) >= 8


def test_the_table_is_large_bilingual_and_covers_the_issue_kinds() -> None:
    assert len(ALL) >= 250 and len(EN) >= 100 and len(ZH) >= 100
    kinds = Counter(case.kind for case in ALL)
    for kind in ("weekday-past", "weekday-future", "weekday-neutral", "day-of-month", "weekday+day",
                 "month-no-year", "relative-offset", "parts-of-day", "range", "holiday"):  # fmt: skip
        assert kinds[kind] >= 8, kind
        assert kinds[f"zh-{kind}"] >= 6, f"zh-{kind}"
