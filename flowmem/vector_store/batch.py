"""What the store base hands a backend, every rule already applied: one write (:class:`WriteBatch`), one read
around a place (:class:`AdjacentRead`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.vector_store.erasure import Fence
from flowmem.vector_store.filters import MemoryFilter

# What a write marks memorized: (user id, message ids). A message is identified by (workspace, user, message id).
Ledger = tuple[str, list[str]]


@dataclass
class WriteBatch:
    """What one :meth:`VectorStore.write <flowmem.vector_store.base.VectorStore.write>` does, checked.

    Attributes:
        memories: Memories to insert or replace, each keyed (``expanded_key``) and of the write's workspace.
        vectors: Their unit vectors, one row each (``None`` when there are no memories).
        history: Events to record.
        ledger: (user id, message ids) to mark memorized, or ``None``.
        deleted: Memory ids to delete, unique, none of them in ``memories``.
        fence: The erasure generations the write was prepared under (:mod:`~flowmem.vector_store.erasure`);
            ``None``: not checked.
        must_exist: Ids of ``memories`` that replace stored ones and must still be stored when the write lands.
    """

    memories: list[Memory]
    vectors: np.ndarray | None
    history: list[HistoryEvent]
    ledger: Ledger | None
    deleted: list[str]
    fence: Fence | None = None
    must_exist: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class AdjacentRead:
    """What one :meth:`VectorStore.adjacent <flowmem.vector_store.base.VectorStore.adjacent>` reads, checked.

    Attributes:
        at: The place's ``created_at``.
        memory_id: The place's id (never among the memories read).
        filters: Which memories may be read (checked against what the store can filter on).
        before: How many memories before the place, nearest first (0 to ``MAX_ADJACENT``).
        after: How many after it, nearest first.
        with_vectors: Read their vectors too.
        own: The place's sources (message ids): in a read of turns (:meth:`VectorStore.turns_around
            <flowmem.vector_store.base.VectorStore.turns_around>`, where ``before`` and ``after`` count turns),
            the memories sharing one are the place's own turn, read past.
    """

    at: datetime
    memory_id: str
    filters: MemoryFilter
    before: int
    after: int
    with_vectors: bool = False
    own: tuple[str, ...] = ()
