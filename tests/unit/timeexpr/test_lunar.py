"""Days of the Chinese lunar calendar, from the generated month starts and lengths (scripts/gen_lunar_dates.py)."""

from __future__ import annotations

from datetime import date

import pytest

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


@pytest.mark.parametrize(
    ("key", "dates"),
    [
        ("lunar_new_years_eve", (date(2000, 2, 4), date(2025, 1, 28), date(2050, 1, 22), None)),
        ("lunar_new_year", (date(2000, 2, 5), date(2025, 1, 29), date(2050, 1, 23), None)),
        ("lantern_festival", (date(2000, 2, 19), date(2025, 2, 12), date(2050, 2, 6), None)),
        ("dragon_boat", (date(2000, 6, 6), date(2025, 5, 31), date(2050, 6, 23), None)),
        ("qixi", (date(2000, 8, 6), date(2025, 8, 29), date(2050, 8, 23), None)),
        ("mid_autumn", (date(2000, 9, 12), date(2025, 10, 6), date(2050, 9, 30), None)),
        ("double_ninth", (date(2000, 10, 6), date(2025, 10, 29), date(2050, 10, 24), None)),
        (
            "little_new_year",
            (None, date(2025, 1, 22), date(2050, 1, 16), date(2051, 2, 4)),
        ),  # 腊月二十三 of the year before
    ],
)
def test_the_lunar_holidays_are_their_lunar_days(key: str, dates: tuple[date | None, ...]) -> None:
    """Each lunar holiday is its day of the lunar calendar (the dates are lunardate's), in 2000, 2025, 2050 and 2051:
    none outside the table's years."""
    assert tuple(BY_KEY[key].on(year) for year in (2000, 2025, 2050, 2051)) == dates
