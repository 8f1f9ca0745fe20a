"""Write flowmem/timeexpr/lunar_dates.py: the Gregorian dates of the lunar holidays and months, 2000–2050.

The table is generated once (and checked in) so that flowmem needs no lunar-calendar package at
run time. It uses ``lunardate`` (pure Python, MIT; ``pip install lunardate``), which converts
Chinese lunisolar dates for 1900–2099. Run: ``.venv/bin/python scripts/gen_lunar_dates.py``.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from lunardate import LunarDate  # type: ignore[import-untyped,import-not-found,unused-ignore]

FIRST, LAST = 2000, 2050
# Lunar (month, day) of each holiday; the eve is the day before the new year.
HOLIDAYS = {
    "lunar_new_year": (1, 1),
    "lantern": (1, 15),
    "dragon_boat": (5, 5),
    "qixi": (7, 7),
    "mid_autumn": (8, 15),
    "double_ninth": (9, 9),
}
TARGET = Path(__file__).resolve().parents[1] / "flowmem" / "timeexpr" / "lunar_dates.py"


def _has_day_30(year: int, month: int) -> bool:
    try:
        LunarDate(year, month, 30).to_solar_date()
    except ValueError:
        return False
    return True


def main() -> None:
    lines = [
        '"""Gregorian dates of the Chinese lunar holidays, 2000–2050 (generated: do not edit).',
        "",
        "Written by ``scripts/gen_lunar_dates.py`` with the ``lunardate`` package; each string of ``DATES`` holds one",
        "``MMDD`` per year from :data:`FIRST` to :data:`LAST`; ``MONTH_STARTS`` the first day of each month of each",
        'lunar year, in days after 1 January of that year. Years outside the range have no date."""',
        "",
        "FIRST = 2000",
        "LAST = 2050",
        "DATES: dict[str, str] = {",
    ]
    for name, (month, day) in HOLIDAYS.items():
        days = [LunarDate(year, month, day).to_solar_date() for year in range(FIRST, LAST + 1)]
        lines.append(f'    "{name}": (')
        text = " ".join(f"{d:%m%d}" for d in days)
        for start in range(0, len(text), 100):
            lines.append(f'        "{text[start : start + 100]}"')
        lines.append("    ),")
    # The first day of each (not leap) month of each lunar year, as days after 1 January of that Gregorian year (the
    # twelfth month may begin in the next Gregorian year): any lunar date, 腊月二十八, is its month's first day + days.
    lines.append("}")
    lines.append("MONTH_STARTS: dict[int, tuple[int, ...]] = {")
    for year in range(FIRST, LAST + 1):
        starts = [(LunarDate(year, month, 1).to_solar_date() - date(year, 1, 1)).days for month in range(1, 13)]
        lines.append(f"    {year}: ({', '.join(map(str, starts))}),")
    lines.append("}")
    lines.append("# How many days each (not leap) month of each lunar year has: 29 or 30.")
    lines.append("MONTH_DAYS: dict[int, str] = {")
    for year in range(FIRST, LAST + 1):
        lines.append(f'    {year}: "{"".join("0" if _has_day_30(year, month) else "9" for month in range(1, 13))}",')
    eves = [LunarDate(year, 1, 1).to_solar_date() - timedelta(days=1) for year in range(FIRST, LAST + 1)]
    assert all(eve.year == year for eve, year in zip(eves, range(FIRST, LAST + 1), strict=True))
    lines.append("}")
    TARGET.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
