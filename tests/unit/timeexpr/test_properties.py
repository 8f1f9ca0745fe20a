"""Properties over arbitrary text: no exceptions, consistent results, and a gate that never loses a time."""

from __future__ import annotations

from datetime import datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowmem.timeexpr import ExtractedTime, extract_all, has_time_words
from flowmem.timeexpr.extract import _find, _languages
from flowmem.timeexpr.numerals import normalize_width

# Pieces of time expressions (and near misses) so that generated texts hit the rules often.
FRAGMENTS = [
    "last", "next", "this", "the", "on", "in", "at", "of", "ago", "weekend", "week", "month", "year", "day",
    "yesterday", "today", "tonight", "last night", "morning", "evening", "noon", "Friday", "sat", "sun",
    "May", "may", "March", "Feb", "29", "31", "5th", "3pm", "12am", "15:00", "24:00", "2023", "1899", "9999",
    "2023-02-30", "05/06/2023", "1.1.0001", "summer", "fall", "winter", "spring", "half an hour", "a couple of",
    "上", "上上", "下", "这", "本", "周", "周末", "星期", "礼拜", "天", "日", "号", "月", "个", "年", "去年", "明年",
    "前", "后", "前天", "大后天", "昨晚", "今早", "下午", "晚上", "凌晨", "中午", "点", "半", "钟", "时",
    "一", "二", "两", "三", "十", "二十一", "〇", "百", "春", "夏", "冬天", "小时", "分钟", "的", " ", ",", "，",
    # lunar days, British counts and "this time next…" (session 22)
    "农历", "阴历", "正月", "腊月", "冬月", "十二月", "初一", "初十", "廿九", "三十", "八月十五", "this time", "a week",
    "Boxing Day", "renews", "ends",
]  # fmt: skip
texts = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=12).map("".join),
    st.lists(st.sampled_from(FRAGMENTS), max_size=8).map(" ".join),
)
moments = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 12, 31))


def _consistent(found: ExtractedTime) -> None:
    assert found.start < found.end
    start = found.start
    if found.granularity in ("week", "weekend"):
        iso = start.isocalendar()
        assert found.parts == {"year": iso[0], "week": iso[1]}
    else:
        assert found.parts, found
        for part, value in found.parts.items():
            assert getattr(start, part) == value, (part, found)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, now=moments)
def test_extraction_never_raises_and_results_are_consistent(text: str, now: datetime) -> None:
    for language in (None, "en", "zh"):
        for found in extract_all(text, now, language):  # type: ignore[arg-type]
            _consistent(found)
            assert found.expression and found.expression in text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts, now=moments)
def test_the_gate_is_a_superset_of_the_rules(text: str, now: datetime) -> None:
    normalized = normalize_width(text)
    for language in (None, "en", "zh"):
        if _find(normalized, now, _languages(normalized, language)):  # type: ignore[arg-type]
            assert has_time_words(text, language), (text, language)
