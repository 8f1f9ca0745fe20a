"""Expiring a memory by hand: kept, no longer current, an ``expire`` event in its history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flowmem.errors import InputError, NotFoundError, Problem, WriteConflictError
from flowmem.memories.writing import now
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory

if TYPE_CHECKING:
    from flowmem.memories.service import Memories


async def expire(
    core: Memories, memory_id: str, *, workspace_id: str, user_id: str | None = None, reason: str = "expired by hand"
) -> Memory:
    """Mark a memory expired, as a superseded fact is (never deleted): one write with its history event.

    Raises:
        NotFoundError: No memory with that id in the workspace (with ``user_id``: none of theirs), or it was
            deleted (its user forgotten) meanwhile.
        InputError: It is expired already.
    """
    old = await core.get(memory_id, workspace_id=workspace_id, user_id=user_id)
    if old.status == "expired":
        raise InputError(Problem("memory_id", f"'{memory_id}' is expired already"))
    # Read before the write and checked when it lands, as update does: a forget meanwhile refuses it.
    fence = await core.store.fence(workspace_id, [old.target])
    stored = await core.store.get(workspace_id, [memory_id], with_vectors=True)
    if not stored:
        raise NotFoundError(f"no memory with id '{memory_id}' in workspace '{workspace_id}'")
    new = stored[0].model_copy(update={"status": "expired", "updated_at": now()})
    event = HistoryEvent.of("expire", old=old, new=new, reason=reason)
    try:
        await core.store.write(workspace_id, [new], history=[event], fence=fence, must_exist=[memory_id])
    except (NotFoundError, WriteConflictError) as exc:
        raise NotFoundError(
            f"no memory with id '{memory_id}' in workspace '{workspace_id}' any more: it was deleted (or its user "
            "forgotten) meanwhile; nothing was changed"
        ) from exc
    return new
