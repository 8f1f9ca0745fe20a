"""Scenarios for ``flowmem eval updates``: chats and the memories that must be true after them, and the grading.

A scenario file is JSONL, one scenario per line::

    {"id": "en-residence-moved", "lang": "en", "tags": ["residence", "change"],
     "messages": [{"content": "I live in Milan with my dog Rex.", "time": "2025-03-01T10:00"},
                  {"content": "I moved to Turin today!", "time": "2025-03-24T18:00"}],
     "valid": [["Turin"], ["Rex"]], "expired": [["live", "Milan"]],
     "events": [{"fact": ["dinner", "Sofia"], "date": "2025-03-28"}], "unique": [["Rex"]]}

Messages are the user's (``role`` ``user``, the default) or the assistant's, said at ``time``.

**Matching.** An expected fact is a list of key words or phrases; a memory *holds* the fact when
every one of them occurs in its content, compared case-insensitively after folding whitespace and
typographic apostrophes (substrings: ``live`` matches "lives"; Chinese needs no word boundaries).
So a phrase list must single out the statement it means — ``["live", "Milan"]``, not ``["Milan"]``,
when "I moved from Milan" may still be said. Event dates are an ISO ``date`` or a ``start``–``end``
range of days (inclusive); a memory's event time is its ``event_start``–``event_end`` range, else
the day of its ``event_*`` parts, and it must lie inside.

**Grading** (over every memory of the user, valid or expired, after the whole chat):

- ``valid`` fact: wrongly expired when memories hold it but none of them is valid.
- ``expired`` fact: stale when a valid memory still holds it.
- ``events``: right when at least one valid memory holds the fact and every valid memory holding it
  has its event time inside the expected day or range.
- ``unique`` fact: duplicated when more than one valid memory holds it.
- Any expected fact that no memory holds at all (valid or expired) is lost.

**Questions** (optional): ``"questions": [{"question": "where do I live?", "asked_at": "2025-03-25T09:00",
"answer": ["Turin"]}]``. After the whole chat is stored, each question is asked with a search flow
(``personal_retrieve`` by default) at ``asked_at``; a retrieved memory answers it when it holds
``answer`` (the matching above). Figures: *right first* (the first memory answers), *in top 5*, and
MRR@10 (1 / rank of the first answering memory among the first 10, else 0). What search returns is
graded as it is: it recalls valid memories only unless configured otherwise, so a superseded memory
that was never expired can outrank the current one.

**Shortcuts.** ``shipped`` names ``flowmem/eval/data/updates.jsonl``; ``dev`` and ``heldout`` name the
halves of ``flowmem/eval/data/scenarios-2026/`` (``*.dev.jsonl``, ``*.heldout.jsonl``), every file of
that half, each reported on its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date as Date
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from flowmem.core.errors import InputError, Problem
from flowmem.eval.records import load_records
from flowmem.schema.memory import Memory

Phrase = Annotated[str, Field(min_length=1, pattern=r"\S")]
Fact = Annotated[list[Phrase], Field(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScenarioMessage(_Strict):
    content: str = Field(min_length=1)
    time: datetime
    role: Literal["user", "assistant"] = "user"


class EventDate(_Strict):
    """A fact with a date (``date``) or an inclusive range of days (``start``, ``end``)."""

    fact: Fact
    date: Date | None = None
    start: Date | None = None
    end: Date | None = None

    @model_validator(mode="after")
    def _one_form(self) -> EventDate:
        if (self.date is None) == (self.start is None or self.end is None):
            raise ValueError("give either date, or start and end")
        if self.start and self.end and self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")
        return self

    @property
    def days(self) -> tuple[Date, Date]:
        if self.date is not None:
            return self.date, self.date
        assert self.start is not None and self.end is not None
        return self.start, self.end


class ScenarioQuestion(_Strict):
    """A question asked after the chat, and the key words of the memory that answers it."""

    question: str = Field(min_length=1)
    asked_at: datetime
    answer: Fact


class Scenario(_Strict):
    id: str = Field(min_length=1)
    lang: Literal["en", "zh"]
    tags: list[str] = Field(default_factory=list)
    note: str = ""
    messages: list[ScenarioMessage] = Field(min_length=1)
    valid: list[Fact] = Field(default_factory=list)
    expired: list[Fact] = Field(default_factory=list)
    events: list[EventDate] = Field(default_factory=list)
    unique: list[Fact] = Field(default_factory=list)
    questions: list[ScenarioQuestion] = Field(default_factory=list)


def shipped_path() -> Path:
    """The scenarios shipped with flowmem (``flowmem/eval/data/updates.jsonl``, CC0)."""
    return Path(str(resources.files("flowmem.eval").joinpath("data/updates.jsonl")))


SHORTCUTS = {
    "shipped": "updates.jsonl",
    "dev": "scenarios-2026/*.dev.jsonl",
    "heldout": "scenarios-2026/*.heldout.jsonl",
}


def resolve(name: str) -> list[Path]:
    """The files a command-line name stands for: a shortcut of :data:`SHORTCUTS` (every file of it), else the path.

    Raises:
        InputError: A shortcut whose files do not exist (yet).
    """
    pattern = SHORTCUTS.get(name)
    if pattern is None:
        return [Path(name)]
    if name == "shipped":
        return [shipped_path()]
    data = shipped_path().parent
    found = sorted(data.glob(pattern))
    if not found:
        raise InputError(Problem(name, f"names {data / pattern}, and no such file exists"))
    return found


def load(path: str | Path) -> list[Scenario]:
    """The scenarios of a JSONL file; every bad line is reported at once (with its number).

    Raises:
        InputError: The file is missing, or lines are not scenarios, or two share an id.
    """
    return load_records(path, Scenario, "scenario")


# -- matching ---------------------------------------------------------------------------------------
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'"})


def normal(text: str) -> str:
    """How contents and phrases are compared: case-folded, whitespace folded, one kind of apostrophe."""
    return " ".join(text.translate(_APOSTROPHES).casefold().split())


def holds(memory: Memory, fact: Sequence[str]) -> bool:
    """Whether every phrase of ``fact`` occurs in the memory's content."""
    content = normal(memory.content)
    return all(normal(phrase) in content for phrase in fact)


def event_days(memory: Memory) -> tuple[datetime, datetime] | None:
    """The memory's event time as [start, end): its range, else the day of its event parts; None when unknown."""
    if memory.event_start is not None:
        end = memory.event_end or memory.event_start
        return memory.event_start, max(end, memory.event_start + timedelta(microseconds=1))
    when = memory.event_time
    if when is None:
        return None
    day = datetime(when.year, when.month, when.day)
    return day, day + timedelta(days=1)


# -- grading ----------------------------------------------------------------------------------------
@dataclass
class Grade:
    """One scenario's (or a whole run's) counts, and what went wrong, in words."""

    valid: int = 0
    wrongly_expired: int = 0
    expired: int = 0
    stale: int = 0
    events: int = 0
    events_right: int = 0
    unique: int = 0
    duplicated: int = 0
    facts: int = 0
    lost: int = 0
    failures: list[str] = field(default_factory=list)

    COUNTS = ("valid", "wrongly_expired", "expired", "stale", "events", "events_right", "unique", "duplicated",
              "facts", "lost")  # fmt: skip

    def add(self, other: Grade) -> None:
        for name in self.COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def rates(self) -> dict[str, float | None]:
        """The five figures (``None`` where nothing was expected of that kind)."""

        def rate(part: int, whole: int) -> float | None:
            return round(part / whole, 4) if whole else None

        return {
            "stale_rate": rate(self.stale, self.expired),
            "wrongly_expired_rate": rate(self.wrongly_expired, self.valid),
            "event_date_accuracy": rate(self.events_right, self.events),
            "duplicate_rate": rate(self.duplicated, self.unique),
            "lost_rate": rate(self.lost, self.facts),
        }

    def to_dict(self) -> dict[str, Any]:
        return {**{name: getattr(self, name) for name in self.COUNTS}, **self.rates()}


def grade(scenario: Scenario, memories: Iterable[Memory], *, dated: bool = True) -> Grade:
    """How the user's memories after the chat compare with what the scenario expects.

    Args:
        dated: Whether the memories can carry event times; when not (turns stored as said), event dates are
            not graded (their facts still count for lost).
    """
    everything = list(memories)
    valid = [m for m in everything if m.status == "valid"]
    result = Grade()

    def shown(found: Sequence[Memory]) -> str:
        return "; ".join(f"[{m.status}] {' '.join(m.content.split())[:80]}" for m in found[:3]) or "no memory"

    expected = [*scenario.valid, *scenario.expired, *scenario.unique, *(e.fact for e in scenario.events)]
    for distinct in {tuple(f): None for f in expected}:
        result.facts += 1
        if not any(holds(m, distinct) for m in everything):
            result.lost += 1
            result.failures.append(f"lost: {list(distinct)} is in no memory")
    for fact in scenario.valid:
        result.valid += 1
        found = [m for m in everything if holds(m, fact)]
        if found and not any(m.status == "valid" for m in found):
            result.wrongly_expired += 1
            result.failures.append(f"wrongly expired: {fact} — {shown(found)}")
    for fact in scenario.expired:
        result.expired += 1
        still = [m for m in valid if holds(m, fact)]
        if still:
            result.stale += 1
            result.failures.append(f"stale: {fact} still valid — {shown(still)}")
    for event in scenario.events if dated else ():
        result.events += 1
        first, last = event.days
        wanted = (
            datetime.combine(first, datetime.min.time()),
            datetime.combine(last + timedelta(days=1), datetime.min.time()),
        )
        found = [m for m in valid if holds(m, event.fact)]
        spans = [event_days(m) for m in found]
        if found and all(s is not None and wanted[0] <= s[0] and s[1] <= wanted[1] for s in spans):
            result.events_right += 1
        else:
            said = ", ".join(
                "none" if s is None else f"{s[0]:%Y-%m-%d}..{s[1] - timedelta(microseconds=1):%Y-%m-%d}" for s in spans
            )
            result.failures.append(
                f"event date: {event.fact} expected {first}..{last}, stored {said or 'no valid memory'}"
            )
    for fact in scenario.unique:
        result.unique += 1
        found = [m for m in valid if holds(m, fact)]
        if len(found) > 1:
            result.duplicated += 1
            result.failures.append(f"duplicated: {fact} in {len(found)} valid memories — {shown(found)}")
    return result


def answer_rank(retrieved: Sequence[Memory], answer: Sequence[str], depth: int = 10) -> int | None:
    """The 1-based rank of the first of ``retrieved[:depth]`` that holds ``answer``; None when none does."""
    return next((rank for rank, m in enumerate(retrieved[:depth], 1) if holds(m, answer)), None)
