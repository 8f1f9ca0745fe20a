"""Per-query cost of the rules, printed (not asserted: timings depend on the machine).

Run alone for the figures: ``.venv/bin/python -m tests.unit.timeexpr.test_bench``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from flowmem.timeexpr import extract_time, has_time_words
from tests.unit.timeexpr.cases import EN_CASES, WED, ZH_CASES
from tests.unit.timeexpr.test_extract import NO_TIME


def _per_call_us(function: Callable[[str], object], queries: list[str], rounds: int) -> float:
    for query in queries:  # warm-up
        function(query)
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for query in queries:
            function(query)
        best = min(best, (time.perf_counter() - started) / len(queries))
    return best * 1e6


def measure(rounds: int = 20) -> str:
    """One line per query set: the best-of-``rounds`` mean cost per query in microseconds."""
    english = [case.query for case in EN_CASES]
    chinese = [case.query for case in ZH_CASES]
    rows = [
        ("extract_time, English table", _per_call_us(lambda q: extract_time(q, WED), english, rounds)),
        ("extract_time, Chinese table", _per_call_us(lambda q: extract_time(q, WED), chinese, rounds)),
        ("extract_time, no time words", _per_call_us(lambda q: extract_time(q, WED), NO_TIME, rounds)),
        ("has_time_words, English table", _per_call_us(has_time_words, english, rounds)),
    ]
    return "\n".join(f"  {name:32} {cost:8.1f} µs/query" for name, cost in rows)


def test_print_the_per_query_cost(capsys: pytest.CaptureFixture[str]) -> None:
    report = measure(rounds=5)
    with capsys.disabled():
        print(f"\ntimeexpr per-query cost (best of 5):\n{report}")


if __name__ == "__main__":
    print(measure())
