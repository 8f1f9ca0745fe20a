"""Days of the Chinese lunar calendar, from the generated month starts and lengths (scripts/gen_lunar_dates.py)."""

from __future__ import annotations

from datetime import date

import pytest

from flowmem.timeexpr import lunar_dates
from flowmem.timeexpr.holidays import BY_KEY, lunar_day


@pytest.mark.parametrize(
    ("year", "month", "day", "expected"),
    [
        (2025, 1, 1, date(2025, 1, 29)),  # the lunar new year of 2025
        (2024, 12, 28, date(2025, 1, 27)),  # 腊月二十八 of the 2024 lunar year falls in January 2025
        (2024, 12, 29, date(2025, 1, 28)),  # and 除夕 was 腊月二十九: that 腊月 had 29 days
        (2024, 12, 30, None),
        (2017, 6, 30, None),  # a leap sixth month follows a sixth month of 29 days: its 30th does not exist
        (2025, 8, 3, date(2025, 9, 24)),
        (1999, 1, 1, None),  # outside the table
        (2051, 1, 1, None),
    ],
)
def test_lunar_day(year: int, month: int, day: int, expected: date | None) -> None:
    assert lunar_day(year, month, day) == expected


def test_the_month_table_agrees_with_the_holiday_table_every_year() -> None:
    """Two tables written by one generator: each lunar holiday is its lunar date's day in every year of the range."""
    days = {"lantern_festival": (1, 15), "dragon_boat": (5, 5), "mid_autumn": (8, 15), "qixi": (7, 7),
            "double_ninth": (9, 9), "lunar_new_year": (1, 1)}  # fmt: skip
    for year in range(lunar_dates.FIRST, lunar_dates.LAST + 1):
        for key, (month, day) in days.items():
            assert BY_KEY[key].on(year) == lunar_day(year, month, day), (key, year)
