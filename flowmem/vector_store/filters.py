"""Which memories a store call applies to, beyond the mandatory workspace scope.

The semantics of every condition are declared here once: :attr:`MemoryFilter.FIELDS` gives each
field a :class:`FilterSpec` — its *kind* of test (one of, equal parts, at least, before, within,
contains, overlaps) and its *subject* (what of a memory it tests). :meth:`MemoryFilter.matches`
applies the declaration directly (the reference semantics); the stores build their own filters
from the same declaration (the numpy mask of :mod:`~flowmem.vector_store.index`, the Elasticsearch
query of :mod:`~flowmem.vector_store.elasticsearch.query`), and the store base refuses a condition whose
subject a store cannot filter on (:func:`~flowmem.vector_store.rules.check_filter`). The
conformance suite compares every store with :meth:`~MemoryFilter.matches` condition by condition.

Times compare to the whole second (the earlier second of a sub-second time): that is what every
store's index keeps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from flowmem.core.suggest import unknown
from flowmem.schema.event_span import event_span as event_span  # re-exported: the stores import it from here
from flowmem.schema.memory import EVENT_PARTS, MSG_PARTS, MemoryStatus, MemoryType
from flowmem.schema.timeparts import WallClock
from flowmem.scoring.slots import SLOTS_KEY

PART_FIELDS: tuple[str, ...] = (*MSG_PARTS, *EVENT_PARTS)
_EPOCH = datetime(1970, 1, 1)

FilterKind = Literal["one_of", "parts", "at_least", "before", "within", "contains", "shares", "overlaps"]
# What each kind tests: the type of subject it needs (a kind on a subject of another type is refused
# when a filter class is defined), so every store knows from the kind alone which column to use how.
KIND_NEEDS: dict[FilterKind, str] = {
    "one_of": "keyword",  # the subject is one of the given values
    "parts": "parts",  # every given time part equals the memory's
    "at_least": "time",  # subject >= value
    "before": "time",  # subject < value
    "within": "time",  # start <= subject < end
    "contains": "keywords",  # the value is one of the subject's values (a list)
    "shares": "keywords",  # one of the given values is one of the subject's values
    "overlaps": "span",  # the subject's [from, until) overlaps [start, end)
}
# The subjects stores know, and their types. A condition on any other subject works in
# MemoryFilter.matches (it reads the memory's attribute of that name) but no store applies it: it is refused.
SUBJECT_TYPES: dict[str, str] = {
    "target": "keyword",
    "memory_type": "keyword",
    "status": "keyword",
    "parts": "parts",
    "created_at": "time",
    "said_at": "time",  # the message time (msg_* parts), if they say it
    "event_span": "span",  # event_span(): the event range, else the day (hour) of the event_* parts
    "source": "keywords",
    "slot_names": "keywords",  # the slots of metadata["slots"] (UNREAD_SLOTS when it has none stored)
    "slot_values": "keywords",  # their values
}
# The pseudo-slot a memory stored without metadata["slots"] holds (its slots were never read from its words): asked
# for beside real slot names, a slot read finds the memories whose slots are still to be read in the same query.
UNREAD_SLOTS = "?"


@dataclass(frozen=True)
class FilterSpec:
    """How one :class:`MemoryFilter` field tests a memory.

    Attributes:
        kind: The kind of test (see :data:`KIND_NEEDS`).
        subject: What of a memory it tests (see :data:`SUBJECT_TYPES`).
    """

    kind: FilterKind
    subject: str


def _as_tuple(value: Any) -> Any:
    if value is None or isinstance(value, tuple):
        return value
    return (value,) if isinstance(value, str) else tuple(value)


class MemoryFilter(BaseModel):
    """Conditions a memory must meet; every given condition must hold (AND).

    Attributes:
        target: One of these targets.
        memory_type: One of these types.
        status: One of these statuses.
        parts: Time-part equality, given as a mapping (``{"msg_year": 2024, "event_month": 5}``),
            kept as sorted ``(name, value)`` pairs.
        created_after: ``created_at >= created_after``.
        created_before: ``created_at < created_before``.
        source: The memory was derived from this message id.
        said_between: ``[start, end)``: the memory's message time (``msg_*`` parts) falls inside.
        happens_between: ``[start, end)``: the memory's event (its range, else its ``event_*`` parts
            taken as that day) overlaps it.
        slots: The memory holds one of these slots (names as in ``metadata["slots"]``, e.g. ``residence``,
            ``pet_name:dog``); :data:`UNREAD_SLOTS` among them: or its slots were never stored.
        slot_values: One of the memory's slots holds one of these values (e.g. ``nibbles``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: tuple[str, ...] | None = None
    memory_type: tuple[MemoryType, ...] | None = None
    status: tuple[MemoryStatus, ...] | None = None
    parts: tuple[tuple[str, int], ...] = ()
    created_after: WallClock | None = None
    created_before: WallClock | None = None
    source: str | None = None
    said_between: tuple[WallClock, WallClock] | None = None
    happens_between: tuple[WallClock, WallClock] | None = None
    slots: tuple[str, ...] | None = None
    slot_values: tuple[str, ...] | None = None

    FIELDS: ClassVar[dict[str, FilterSpec]] = {
        "target": FilterSpec("one_of", "target"),
        "memory_type": FilterSpec("one_of", "memory_type"),
        "status": FilterSpec("one_of", "status"),
        "parts": FilterSpec("parts", "parts"),
        "created_after": FilterSpec("at_least", "created_at"),
        "created_before": FilterSpec("before", "created_at"),
        "source": FilterSpec("contains", "source"),
        "said_between": FilterSpec("within", "said_at"),
        "happens_between": FilterSpec("overlaps", "event_span"),
        "slots": FilterSpec("shares", "slot_names"),
        "slot_values": FilterSpec("shares", "slot_values"),
    }
    """Each field's semantics; a subclass adding a field must declare it here too (checked when it is defined)."""

    _normalise = field_validator("target", "memory_type", "status", "slots", "slot_values", mode="before")(_as_tuple)

    @field_validator("parts", mode="before")
    @classmethod
    def _known_parts(cls, parts: Any) -> Any:
        # Given as a mapping, kept as sorted pairs so filters are hashable (usable as cache keys).
        pairs = sorted(parts.items()) if isinstance(parts, dict) else parts
        for name, _ in pairs:
            if name not in PART_FIELDS:
                raise ValueError(unknown("time part", name, PART_FIELDS))
        return tuple(pairs)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        _check_declared(cls)

    def conditions(self) -> list[tuple[str, FilterSpec, Any]]:
        """The conditions this filter sets: (field name, its spec, its value), in declaration order."""
        fields = type(self).model_fields
        return [
            (name, spec, value)
            for name, spec in type(self).FIELDS.items()
            if (value := getattr(self, name)) != fields[name].default
        ]

    def matches(self, memory: Any) -> bool:
        """Whether one memory (any object with the Memory fields) meets every condition: the reference semantics."""
        return all(_TESTS[spec.kind](subject_of(memory, spec.subject), value) for _, spec, value in self.conditions())

    @property
    def is_empty(self) -> bool:
        return not self.conditions()


def _check_declared(cls: type[MemoryFilter]) -> None:
    """Every field of a filter class has a spec, and every spec a known kind fitting its subject."""
    problems = [f"field '{name}' has no FilterSpec in FIELDS" for name in cls.model_fields if name not in cls.FIELDS]
    for name, spec in cls.FIELDS.items():
        if name not in cls.model_fields:
            problems.append(f"FIELDS names '{name}', which is not a field")
        elif spec.kind not in KIND_NEEDS:
            problems.append(f"field '{name}' has kind '{spec.kind}'; kinds: {', '.join(KIND_NEEDS)}")
        elif spec.subject in SUBJECT_TYPES and SUBJECT_TYPES[spec.subject] != KIND_NEEDS[spec.kind]:
            problems.append(
                f"field '{name}' tests {spec.subject} (a {SUBJECT_TYPES[spec.subject]}) with '{spec.kind}', "
                f"which tests a {KIND_NEEDS[spec.kind]}"
            )
    if problems:
        raise TypeError(f"{cls.__name__}: " + "; ".join(problems))


_check_declared(MemoryFilter)
NO_FILTER = MemoryFilter()


def created_epoch(value: datetime) -> int:
    """Wall-clock datetimes as comparable integers: whole seconds (the earlier one), as if UTC.

    Floored, not truncated toward zero, so a sub-second time before 1970 lands in its own second
    (as :func:`second` puts it) and an index column compares exactly as :meth:`MemoryFilter.matches` does.
    """
    return (value.replace(microsecond=0) - _EPOCH) // timedelta(seconds=1)


def second(value: datetime) -> datetime:
    """``value`` to the whole second (the earlier one): the precision time conditions compare at."""
    return value.replace(microsecond=0)


def subject_of(memory: Any, subject: str) -> Any:
    """What a condition on ``subject`` tests of ``memory`` (``parts``: the memory itself)."""
    if subject == "parts":
        return memory
    if subject == "said_at":
        return memory.message_time
    if subject == "event_span":
        return event_span(memory)
    if subject in ("slot_names", "slot_values"):
        return slot_keywords(stored_slots(memory.metadata))[subject]
    return getattr(memory, subject)


def stored_slots(metadata: dict[str, Any]) -> dict[str, str] | None:
    """The slots kept in a memory's ``metadata["slots"]``; ``None`` when none are stored (never read)."""
    slots = metadata.get(SLOTS_KEY)
    return {str(k): str(v) for k, v in slots.items()} if isinstance(slots, dict) else None


def slot_keywords(slots: dict[str, str] | None) -> dict[str, tuple[str, ...]]:
    """What the ``slot_names`` and ``slot_values`` subjects hold for a memory with these stored slots."""
    if slots is None:
        return {"slot_names": (UNREAD_SLOTS,), "slot_values": ()}
    return {"slot_names": tuple(slots), "slot_values": tuple(dict.fromkeys(slots.values()))}


def _within(said: datetime | None, bounds: tuple[datetime, datetime]) -> bool:
    return said is not None and second(bounds[0]) <= second(said) < second(bounds[1])


def _overlaps(span: tuple[datetime, datetime] | None, bounds: tuple[datetime, datetime]) -> bool:
    return span is not None and second(span[0]) < second(bounds[1]) and second(bounds[0]) < second(span[1])


# The reference test of each kind: (what the memory has, what the condition gives) -> whether it holds.
_TESTS: dict[str, Callable[[Any, Any], bool]] = {
    "one_of": lambda actual, values: actual in values,
    "parts": lambda memory, pairs: all(getattr(memory, name) == value for name, value in pairs),
    "at_least": lambda actual, bound: actual is not None and second(actual) >= second(bound),
    "before": lambda actual, bound: actual is not None and second(actual) < second(bound),
    "within": _within,
    "contains": lambda actual, value: value in actual,
    "shares": lambda actual, values: not set(actual).isdisjoint(values),
    "overlaps": _overlaps,
}
