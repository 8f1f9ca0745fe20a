"""The labelled table of message (and question) event times: every case right, and every kind present."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.unit.timeexpr.message_cases import ALL, EN, ZH, MessageCase, expected_range, resolved


@pytest.mark.parametrize("case", ALL, ids=[case.id for case in ALL])
def test_case(case: MessageCase) -> None:
    assert resolved(case) == expected_range(case.expected)


def test_the_table_is_large_bilingual_and_covers_the_issue_kinds() -> None:
    assert len(ALL) >= 250 and len(EN) >= 100 and len(ZH) >= 100
    kinds = Counter(case.kind for case in ALL)
    for kind in ("weekday-past", "weekday-future", "weekday-neutral", "day-of-month", "weekday+day",
                 "month-no-year", "relative-offset", "parts-of-day", "range", "holiday"):  # fmt: skip
        assert kinds[kind] >= 8, kind
        assert kinds[f"zh-{kind}"] >= 6, f"zh-{kind}"
