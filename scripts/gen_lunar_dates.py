"""Write flowmem/timeexpr/lunar_dates.py: the Chinese lunar calendar's months (first days, lengths), 2000–2050.

The table is generated once (and checked in) so that flowmem needs no lunar-calendar package at
run time. It uses ``lunardate`` (pure Python, MIT; ``pip install lunardate``), which converts
Chinese lunisolar dates for 1900–2099. Run: ``.venv/bin/python scripts/gen_lunar_dates.py``.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from lunardate import LunarDate  # type: ignore[import-untyped,import-not-found,unused-ignore]

FIRST, LAST = 2000, 2050
TARGET = Path(__file__).resolve().parents[1] / "flowmem" / "timeexpr" / "lunar_dates.py"


def _has_day_30(year: int, month: int) -> bool:
    try:
        LunarDate(year, month, 30).to_solar_date()
    except ValueError:
        return False
    return True


def main() -> None:
    lines = [
        '"""The Chinese lunar calendar\'s months, 2000–2050 (generated: do not edit).',
        "",
        "Written by ``scripts/gen_lunar_dates.py`` with the ``lunardate`` package: ``MONTH_STARTS`` holds",
        "the first day of each (not leap) month of each lunar year, in days after 1 January of that Gregorian year",
        "(the twelfth month may begin in the next one), and ``MONTH_DAYS`` each month's length (``9``: 29 days,",
        "``0``: 30). Any lunar date (腊月二十八, the holidays: :func:`flowmem.timeexpr.holidays.lunar_day`) is its",
        'month\'s first day + days. Years outside the range have no date."""',
        "",
        "FIRST = 2000",
        "LAST = 2050",
        "MONTH_STARTS: dict[int, tuple[int, ...]] = {",
    ]
    for year in range(FIRST, LAST + 1):
        starts = [(LunarDate(year, month, 1).to_solar_date() - date(year, 1, 1)).days for month in range(1, 13)]
        lines.append(f"    {year}: ({', '.join(map(str, starts))}),")
    lines.append("}")
    lines.append("MONTH_DAYS: dict[int, str] = {")
    for year in range(FIRST, LAST + 1):
        lines.append(f'    {year}: "{"".join("0" if _has_day_30(year, month) else "9" for month in range(1, 13))}",')
    lines.append("}")
    TARGET.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
