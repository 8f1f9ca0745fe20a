"""Accuracy per kind of the labelled event-time table (tests/unit/timeexpr/message_cases.py), as JSON.

Run from the repository root: ``.venv/bin/python scripts/eval_time_table.py`` (``--failures`` lists
the cases that miss). Each case is a message (or a question) with the moment it was said and the
date or range it names, resolved as flowmem reads it — messages by the write path
(:func:`flowmem.scoring.derive.event_time`), questions by :func:`flowmem.timeexpr.extract_time`.

Kinds covered: weekdays with past, future and neutral wording; a day of the month alone; a weekday
with a day of the month ("Friday the 28th", 周五28号); month names and dates without a year; counts
("in two weeks", 三天前) and relative days, weeks, weekends, months, years; parts of the day and clock
times; ranges ("from the 3rd to the 7th", 3号到7号); named holidays (US and Chinese, lunar ones
included); questions. Each in English and in Chinese (``zh-…``).

Kinds not covered (the rules do not read them, so the table does not pretend): vague times ("a few
days ago", "recently", 最近, 前几天), habits ("every Friday", 每周三), durations ("for three days"),
fiscal or school calendars, holidays outside the table (Diwali, Ramadan, Orthodox Easter), time
zones, and expressions that need the conversation before the message ("the day after that").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.unit.timeexpr.message_cases import ALL, is_right, resolved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--failures", action="store_true", help="also list the cases that miss")
    args = parser.parse_args()
    right: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    failures = []
    for case in ALL:
        total[case.kind] += 1
        if is_right(case):
            right[case.kind] += 1
        else:
            got = resolved(case)  # the first time (the one a message's memory stores)
            shown = [t.isoformat() for t in got] if got else None
            failures.append(
                {"kind": case.kind, "text": case.text, "said": case.said.isoformat(), "expected": case.expected,
                 "got": shown}
            )  # fmt: skip
    report: dict[str, object] = {
        "cases": len(ALL),
        "accuracy": round(sum(right.values()) / len(ALL), 4),
        "per_kind": {
            kind: {"right": right[kind], "cases": total[kind], "accuracy": round(right[kind] / total[kind], 4)}
            for kind in sorted(total)
        },
    }
    if args.failures:
        report["failures"] = failures
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
