"""What happened to a memory, and when: the write path records every add, update, expire and delete."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from flowmem.schema.memory import Memory
from flowmem.schema.timeparts import WallClock

HistoryKind = Literal["add", "update", "expire", "delete"]


def _now() -> datetime:
    return datetime.now().replace(microsecond=0)


class HistoryEvent(BaseModel):
    """One change to one memory.

    Attributes:
        event_id: Derived from the change itself, so recording the same change twice (a rerun
            after a crash) keeps one event.
        old: The memory before (``None`` for an add); ``new``: after (``None`` for a delete).
        flow_id: The run that made the change; ``reason``: why (e.g. "near-duplicate of …").
    """

    model_config = ConfigDict(extra="forbid")

    event_id: str
    workspace_id: str = Field(min_length=1)
    memory_id: str
    event: HistoryKind
    old: dict[str, Any] | None = None
    new: dict[str, Any] | None = None
    time: WallClock = Field(default_factory=_now)
    flow_id: str = ""
    reason: str = ""

    @property
    def targets(self) -> list[str]:
        """Whom this event's memory records (``old``, ``new``) are about: their ``target``s, without repeats.

        A user's history is the events whose records are theirs (:meth:`VectorStore.forget` erases them).
        """
        return record_targets(self.old, self.new)

    @classmethod
    def of(
        cls,
        event: HistoryKind,
        *,
        old: Memory | None = None,
        new: Memory | None = None,
        flow_id: str = "",
        reason: str = "",
        time: datetime | None = None,
    ) -> HistoryEvent:
        """An event from the memory before and/or after the change."""
        memory = new if new is not None else old
        if memory is None:
            raise ValueError("a history event needs the memory before or after the change")
        old_record = old.to_record() if old is not None else None
        new_record = new.to_record() if new is not None else None
        digest = hashlib.sha256(
            repr((memory.workspace_id, memory.memory_id, event, old_record, new_record)).encode("utf-8")
        ).hexdigest()[:32]
        return cls(
            event_id=digest,
            workspace_id=memory.workspace_id,
            memory_id=memory.memory_id,
            event=event,
            old=old_record,
            new=new_record,
            time=time or _now(),
            flow_id=flow_id,
            reason=reason,
        )


def record_targets(*records: dict[str, Any] | None) -> list[str]:
    """The ``target`` of each memory record given (``None``s and records without one skipped), without repeats."""
    return list(dict.fromkeys(r["target"] for r in records if r and isinstance(r.get("target"), str)))
