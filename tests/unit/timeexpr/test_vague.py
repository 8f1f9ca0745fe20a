"""A vague past dates what a message tells by the days it points into, never the day it was said."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from flowmem.schema.memory import Memory
from flowmem.scoring.derive import with_event_time
from flowmem.timeexpr import extract_time
from flowmem.timeexpr.vague import vague_past

WED = datetime(2025, 3, 12, 14)


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("saw her the other day", "2025-03-05", "2025-03-11"),
        ("a few days ago I lost my keys", "2025-03-06", "2025-03-10"),
        ("several days back the boiler went", "2025-03-06", "2025-03-10"),
        ("前几天把驾照考下来了", "2025-03-05", "2025-03-11"),
        ("前些天搬家了", "2025-03-05", "2025-03-11"),
        ("前两天去医院了", "2025-03-08", "2025-03-11"),
    ],
)
def test_a_vague_past_is_the_days_before(text: str, first: str, last: str) -> None:
    found = vague_past(text, WED)
    assert found is not None
    assert found.start == datetime.fromisoformat(first)
    assert found.end == datetime.fromisoformat(last) + timedelta(days=1)


@pytest.mark.parametrize(
    "text", ["国庆前两天", "考试前几天要复习", "这两天很忙", "I went there a few times", "the day before"]
)
def test_days_before_a_named_day_or_now_are_not_vague_past(text: str) -> None:
    assert vague_past(text, WED) is None


def test_the_write_path_dates_a_vague_past_and_questions_stay_without_a_time() -> None:
    memory = Memory(memory_id="m", workspace_id="w", target="u", content="saw her the other day", created_at=WED)
    dated = with_event_time(memory, memory.content, WED)
    assert dated.event_start == datetime(2025, 3, 5) and dated.event_end == datetime(2025, 3, 12)
    assert extract_time("what did I do the other day?", WED) is None  # a question keeps recency, not a hard range
