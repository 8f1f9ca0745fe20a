"""The ``Memory`` and ``Message`` records."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, field_validator, model_validator

from flowmem.schema.kinds import MEMORY_TYPES, MemoryStatus, MemoryType
from flowmem.schema.timeparts import TIME_PARTS, UNKNOWN, WallClock, format_when, prefixed_parts, wall_clock

__all__ = ["MEMORY_TYPES", "Memory", "MemoryStatus", "MemoryType", "Message"]
MSG_PARTS = tuple(f"msg_{p}" for p in TIME_PARTS)
# What retrieval sets on a memory and no store keeps: left out of its record (Memory.to_record, the HTTP answers).
RETRIEVAL_FIELDS = frozenset({"scores", "score_sources", "explain"})
EVENT_PARTS = tuple(f"event_{p}" for p in TIME_PARTS)


def new_id() -> str:
    return uuid.uuid4().hex


def _now() -> datetime:
    return datetime.now().replace(microsecond=0)


def _as_vector(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    try:
        with np.errstate(over="ignore"):  # a number beyond float32 becomes inf, refused below
            array = np.asarray(value, dtype=np.float32)
    except (TypeError, OverflowError) as exc:  # pydantic reports only ValueError as invalid input
        raise ValueError(f"a vector is a non-empty 1-d sequence of numbers ({exc})") from None
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"a vector is a non-empty 1-d sequence of numbers, got shape {array.shape}")
    if not np.isfinite(array).all():  # 1e400 parses as inf; inf and nan would poison every similarity
        raise ValueError("a vector's numbers must be finite (within ±3.4e38), got inf or nan")
    return array


Vector = Annotated[
    Any,
    BeforeValidator(_as_vector),
    PlainSerializer(lambda v: None if v is None else [float(x) for x in v], return_type=Any),
]
_Unknown = BeforeValidator(lambda v: UNKNOWN if v is None else v)
# Time parts are bounded like the calendar (-1 = unknown), so a stored part always fits the stores' integer columns.
Year = Annotated[int, Field(ge=UNKNOWN, le=9999), _Unknown]
Month = Annotated[int, Field(ge=UNKNOWN, le=12), _Unknown]
Day = Annotated[int, Field(ge=UNKNOWN, le=31), _Unknown]
Week = Annotated[int, Field(ge=UNKNOWN, le=53), _Unknown]  # ISO week
Weekday = Annotated[int, Field(ge=UNKNOWN, le=7), _Unknown]  # ISO weekday, 1 = Monday
Hour = Annotated[int, Field(ge=UNKNOWN, le=23), _Unknown]


class Memory(BaseModel):
    """One memory about a ``target`` inside a ``workspace_id`` (the tenant scope).

    Time is kept twice: *message time* (``msg_*``: when it was said) and *event time*
    (``event_*``: when the thing it speaks of happens, e.g. "next Friday"), each as integer parts
    with ``-1`` for unknown, plus an optional event range.

    ``scores`` are set by retrieval (recall, rank, type and time factors, final score) with, in
    ``score_sources``, the op that set each, and short reasons in ``explain``; none is stored.
    ``vector`` travels with the memory into stores and exports, never into responses.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    memory_id: str = Field(default_factory=new_id, min_length=1)
    workspace_id: str = Field(min_length=1)
    target: str = ""
    memory_type: MemoryType = "observation"
    when_to_use: str = ""
    content: str
    keywords: list[str] = Field(default_factory=list)
    # Facts, names and dates in words that recall finds the memory by beside its content (flowmem.scoring.keys).
    expanded_key: str = ""
    created_at: WallClock = Field(default_factory=_now)
    updated_at: WallClock = Field(default_factory=_now)
    msg_year: Year = UNKNOWN
    msg_month: Month = UNKNOWN
    msg_day: Day = UNKNOWN
    msg_week: Week = UNKNOWN
    msg_weekday: Weekday = UNKNOWN
    msg_hour: Hour = UNKNOWN
    event_year: Year = UNKNOWN
    event_month: Month = UNKNOWN
    event_day: Day = UNKNOWN
    event_week: Week = UNKNOWN
    event_weekday: Weekday = UNKNOWN
    event_hour: Hour = UNKNOWN
    event_start: WallClock | None = None
    event_end: WallClock | None = None
    status: MemoryStatus = "valid"
    source: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    scores: dict[str, float] = Field(default_factory=dict)
    score_sources: dict[str, str] = Field(default_factory=dict)
    explain: dict[str, str] = Field(default_factory=dict)
    vector: Vector = Field(default=None, exclude=True, repr=False)

    @field_validator("keywords", "source", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _event_range_in_order(self) -> Memory:
        if self.event_start and self.event_end and self.event_end < self.event_start:
            raise ValueError(f"event_end {self.event_end} is before event_start {self.event_start}")
        return self

    @property
    def id(self) -> str:
        """``memory_id`` by the name other memory libraries (mem0) give it."""
        return self.memory_id

    # -- time ----------------------------------------------------------------------------------
    @property
    def message_time(self) -> datetime | None:
        """When it was said, when the message parts are complete enough to say."""
        return _from_parts(self.msg_year, self.msg_month, self.msg_day, self.msg_hour)

    @property
    def event_time(self) -> datetime | None:
        """When the event happens: the range start, else the event parts."""
        return self.event_start or _from_parts(self.event_year, self.event_month, self.event_day, self.event_hour)

    def with_message_time(self, when: datetime) -> Memory:
        """A copy with every ``msg_*`` part taken from ``when``."""
        return self.model_copy(update=prefixed_parts("msg", wall_clock(when)))

    def with_event_time(
        self, when: datetime | None, *, start: datetime | None = None, end: datetime | None = None
    ) -> Memory:
        """A copy with ``event_*`` parts from ``when`` (all unknown for None) and the event range."""
        update: dict[str, Any] = prefixed_parts("event", None if when is None else wall_clock(when))
        update.update(event_start=start, event_end=end)
        return self.model_copy(update=update)

    def display_line(self) -> str:
        """``[2024-06-08 10:00:00 Saturday] content`` (event time first, else message time), or the content."""
        when = self.event_time or self.message_time
        content = " ".join(self.content.split())
        return f"[{format_when(when)}] {content}" if when is not None else content

    # -- (de)serialisation -----------------------------------------------------------------------
    def to_record(self, *, with_vector: bool = False) -> dict[str, Any]:
        """A JSON-ready dict of everything stored (no scores); the vector only when asked."""
        data = self.model_dump(mode="json", exclude=set(RETRIEVAL_FIELDS))
        if with_vector and self.vector is not None:
            data["vector"] = [float(x) for x in self.vector]
        return data

    def set_score(self, name: str, value: float, op: str) -> None:
        """Record one scoring factor and the op that produced it."""
        self.scores[name] = value
        self.score_sources[name] = op


def _from_parts(year: int, month: int, day: int, hour: int) -> datetime | None:
    if UNKNOWN in (year, month, day):
        return None
    try:
        return datetime(year, month, day, max(hour, 0))
    except ValueError:
        return None


class Message(BaseModel):
    """One chat message."""

    model_config = ConfigDict(extra="forbid")

    message_id: str = Field(default_factory=new_id, min_length=1)
    role: Literal["user", "assistant", "system", "tool"] = "user"
    name: str = ""
    content: str
    time_created: WallClock = Field(default_factory=_now)
    memorized: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)

    def is_from(self, user_id: str) -> bool:
        """Whether ``user_id`` sent this message: its ``name`` equals the user id, ignoring case and
        surrounding spaces (``name`` comes from chat transcripts, "Alice " for ``alice``).

        Exact, never a substring or a mention: ``al`` is not ``alice``, and Bob's message that
        mentions Alice is still Bob's. A message without a name is nobody's.
        """
        wanted = user_id.strip().casefold()
        return bool(wanted) and self.name.strip().casefold() == wanted

    def is_users(self, user_id: str) -> bool:
        """Whether the write path takes this message as ``user_id``'s own: its role is ``user`` and its ``name``
        is the user's (:meth:`is_from`) or empty (a transcript of one person's side). The assistant's replies
        and other people's messages are not (they are skipped, and counted as such).
        """
        return self.role == "user" and (not self.name.strip() or self.is_from(user_id))
