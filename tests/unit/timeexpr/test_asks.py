"""Whether a query asks for a time (flowmem.timeexpr.asks): by its opening question words, not by what it is about."""

from __future__ import annotations

import pytest

from flowmem.timeexpr.asks import asks_when


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("When did Caroline go to the LGBTQ support group?", True),
        ("when is my physio?", True),
        ("What day is the dentist?", True),
        ("so when's the wedding", True),
        ("How long ago did we move?", True),
        ("我弟是哪天高考的？", True),
        ("你什么时候搬的家", True),
        ("婚礼是几号？", True),
        ("what did I say when we met?", False),  # a "when" clause inside a question about something else
        ("Whenever I go hiking, what do I bring?", False),
        ("What is my job?", False),
        ("我在哪工作？", False),
    ],
)
def test_asks_when(query: str, asks: bool) -> None:
    assert asks_when(query) is asks
