"""Rendering the inspector's pages: one Jinja environment (autoescaped: memory text is untrusted input), the
security headers every page carries, and the data of ``--explain`` shaped for bars."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.responses import HTMLResponse

from flowmem.cli.explain import FACTOR_ORDER
from flowmem.flow.response import Response
from flowmem.schema.memory import Memory

PREFIX = "/ui"
# Nothing from elsewhere, no inline script or style: a memory's text that slipped past escaping could still
# not run. Bars are SVG attributes, not style attributes, for the same reason.
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer would make Chromium send "Origin: null", which /v1 refuses
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
NEAR_MISSES_SHOWN = 20

_env = Environment(
    loader=PackageLoader("flowmem.server.ui", "templates"),
    autoescape=True,  # every template, whatever its name
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _when(value: datetime | str | None) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    # A day without a time of day (an event's date) shows as the day; otherwise the minute and the weekday.
    return value.strftime("%Y-%m-%d %a" if not (value.hour or value.minute) else "%Y-%m-%d %H:%M %a")


def _query(base: str, **params: Any) -> str:
    kept = {k: v for k, v in params.items() if v not in (None, "", [], ())}
    return base + ("?" + urlencode(kept, doseq=True) if kept else "")


_env.filters["when"] = _when
_env.filters["seg"] = lambda value: quote(str(value), safe="")  # one path segment: a '/' in an id is escaped too
_env.globals.update(prefix=PREFIX, query=_query)


def page(template: str, status: int = 200, /, **context: Any) -> HTMLResponse:
    """``template`` rendered with ``context``, with the inspector's security headers."""
    html = _env.get_template(template).render(**context)
    return HTMLResponse(html, status_code=status, headers=HEADERS)


@dataclass
class Factor:
    """One score factor of one memory, as a bar: its share of the largest value of that factor on the page."""

    name: str
    value: float
    source: str
    why: str
    percent: float


@dataclass
class Explained:
    memory: Memory
    factors: list[Factor]


def explained(memories: list[Memory]) -> list[Explained]:
    """Each memory's factors in the flow's order, each bar scaled to that factor's largest value among them (a
    rank's bar to 1 / rank: the first place is the full bar)."""
    largest: dict[str, float] = {}
    for memory in memories:
        for name, value in memory.scores.items():
            largest[name] = max(largest.get(name, 0.0), _bar(name, value))
    rows = []
    for memory in memories:
        names = sorted(memory.scores, key=lambda n: FACTOR_ORDER.index(n) if n in FACTOR_ORDER else len(FACTOR_ORDER))
        factors = [
            Factor(name, memory.scores[name], memory.score_sources.get(name, "?"), _why(memory, name),
                   100.0 * _bar(name, memory.scores[name]) / largest[name] if largest[name] else 0.0)
            for name in names
        ]  # fmt: skip
        rows.append(Explained(memory, factors))
    return rows


def _bar(name: str, value: float) -> float:
    """How long a factor's bar is before scaling: its size, or for a place in a list (``*_rank``) 1 / place."""
    if name.endswith("_rank"):
        return 1.0 / value if value >= 1 else 0.0
    return abs(value)


def _why(memory: Memory, name: str) -> str:
    if name == "type_ratio":
        return memory.memory_type
    if name == "time_match":
        return memory.explain.get("time", "")
    return memory.explain.get(name, "")


def near_misses(response: Response) -> list[dict[str, Any]]:
    """The memories an op dropped on the way (its ``dropped`` notes), with the op and its reason."""
    spans = sorted(response.trace.spans, key=lambda s: s.position) if response.trace else []
    return [miss for span in spans for miss in span.notes.get("dropped", [])]


def notes(response: Response) -> list[tuple[str, str]]:
    """What the flow noted about the query: its time, the ranker, the recall fusion."""
    spans = sorted(response.trace.spans, key=lambda s: s.position) if response.trace else []
    found: list[tuple[str, str]] = []
    for span in spans:
        for key in ("time", "ranker", "fusion"):
            if span.notes.get(key) not in (None, "", {}):
                found.append((f"{key} ({span.op})", _flat(span.notes[key])))
    return found


def _flat(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items() if v not in (None, "", [], {}))
    return str(value)
