"""An :class:`ExtractedTime` from bare time parts, as an LLM gives them (``{"year": 2024, "month": 5}``).

The range is the span the parts pin down: year+month+day(+hour) → that day (hour); year+week
(+weekday) → that ISO week (day); year+month → that month; year → that year. Parts without a
year take the reference time's year, moved one year back when that would put them in the future
(people ask memories about the past).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from flowmem.schema.timeparts import TIME_PARTS, TimePart
from flowmem.timeexpr.model import ExtractedTime

_ALIASES: dict[str, TimePart] = {
    "年": "year", "月": "month", "日": "day", "号": "day", "周": "week", "星期": "weekday", "时": "hour",
    "years": "year", "months": "month", "days": "day", "weeks": "week", "weekdays": "weekday", "hours": "hour",
}  # fmt: skip
_LIMITS: dict[TimePart, tuple[int, int]] = {
    "year": (1900, 2200), "month": (1, 12), "day": (1, 31), "week": (1, 53), "weekday": (1, 7), "hour": (0, 23),
}  # fmt: skip


def parts_from_reply(data: Any) -> dict[TimePart, int]:
    """Valid time parts from a parsed LLM reply (tolerates string numbers, Chinese keys, nesting in "time")."""
    if isinstance(data, dict) and isinstance(data.get("time"), dict):
        data = data["time"]
    if not isinstance(data, dict):
        return {}
    parts: dict[TimePart, int] = {}
    for key, value in data.items():
        name = _ALIASES.get(str(key).strip().lower(), str(key).strip().lower())
        if name not in TIME_PARTS:
            continue
        try:
            number = int(str(value).strip())
        except (TypeError, ValueError):
            continue
        low, high = _LIMITS[name]
        if low <= number <= high:
            parts[name] = number
    return parts


def from_parts(parts: dict[TimePart, int], now: datetime, expression: str = "") -> ExtractedTime | None:
    """The extracted time the parts describe, or ``None`` when they pin down no span."""
    parts = dict(parts)
    if "year" not in parts and ("month" in parts or "week" in parts):
        parts["year"] = now.year
        probe = _span(parts)
        if probe is not None and probe[0] > now:
            parts["year"] = now.year - 1
    span = _span(parts)
    if span is None:
        return None
    start, end, granularity = span
    return ExtractedTime(
        parts=parts, start=start, end=end, expression=expression, granularity=granularity, source="llm"
    )


def _span(parts: dict[TimePart, int]) -> tuple[datetime, datetime, Any] | None:
    year = parts.get("year")
    if year is None:
        return None
    try:
        if "month" in parts and "day" in parts:
            day = datetime(year, parts["month"], parts["day"])
            if "hour" in parts:
                hour = day.replace(hour=parts["hour"])
                return hour, hour + timedelta(hours=1), "hour"
            return day, day + timedelta(days=1), "day"
        if "week" in parts:
            monday = datetime.combine(date.fromisocalendar(year, parts["week"], 1), datetime.min.time())
            if "weekday" in parts:
                day = monday + timedelta(days=parts["weekday"] - 1)
                return day, day + timedelta(days=1), "day"
            return monday, monday + timedelta(days=7), "week"
        if "month" in parts:
            first = datetime(year, parts["month"], 1)
            following = datetime(year + (parts["month"] == 12), parts["month"] % 12 + 1, 1)
            return first, following, "month"
        return datetime(year, 1, 1), datetime(year + 1, 1, 1), "year"
    except ValueError:
        return None
