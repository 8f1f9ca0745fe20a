"""Per-query cost of the offline time rules (flowmem.timeexpr), as JSON.

Measures the best-of-``--rounds`` mean cost per text, in microseconds, of ``extract_time`` on the
English and Chinese question tables (tests/unit/timeexpr/cases.py), on the labelled message table
(tests/unit/timeexpr/message_cases.py, messages resolved with ``lean="neutral"``), on questions
without time words, and of the keyword gate alone. Timings depend on the machine: nothing is
asserted here (the tests check correctness); the figure to keep is a few dozen µs per query.

Usage: python scripts/bench_timeexpr.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlib import machine

from flowmem.timeexpr import extract_time, has_time_words
from tests.unit.timeexpr.cases import EN_CASES, WED, ZH_CASES
from tests.unit.timeexpr.message_cases import ALL as MESSAGE_CASES

NO_TIME = [
    "what is my favourite food?", "who is my best friend?", "what did I say about the project?",
    "recommend a book for me", "我喜欢什么颜色", "我最喜欢的食物是什么", "我的猫叫什么名字", "帮我总结一下这个项目",
]  # fmt: skip


def per_call_us(function: Callable[[int], object], count: int, rounds: int) -> float:
    """Best-of-``rounds`` mean cost of ``function(i)`` for ``i`` in ``range(count)``, in microseconds."""
    for index in range(count):  # warm-up
        function(index)
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for index in range(count):
            function(index)
        best = min(best, (time.perf_counter() - started) / count)
    return round(best * 1e6, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    english = [case.query for case in EN_CASES]
    chinese = [case.query for case in ZH_CASES]
    messages = MESSAGE_CASES
    results = {
        "extract_time_en_questions_us": per_call_us(lambda i: extract_time(english[i], WED), len(english), rounds),
        "extract_time_zh_questions_us": per_call_us(lambda i: extract_time(chinese[i], WED), len(chinese), rounds),
        "extract_time_messages_us": per_call_us(
            lambda i: extract_time(messages[i].text, messages[i].said, lean="neutral"), len(messages), rounds
        ),
        "extract_time_no_time_words_us": per_call_us(lambda i: extract_time(NO_TIME[i], WED), len(NO_TIME), rounds),
        "has_time_words_en_questions_us": per_call_us(lambda i: has_time_words(english[i]), len(english), rounds),
    }
    print(json.dumps({"rounds": rounds, "results": results, "machine": machine()}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
