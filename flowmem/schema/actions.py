"""Decisions of the write path: what to do with each new memory."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from flowmem.schema.memory import Memory

ActionKind = Literal["add", "update", "expire", "skip"]


class MemoryAction(BaseModel):
    """One decision.

    ``add``: store ``memory`` (new). ``update``: store ``memory``, the new state of ``old``.
    ``expire``: store ``memory``, ``old`` marked expired (never deleted). ``skip``: nothing to store
    (``memory`` is what was already there).
    """

    model_config = ConfigDict(extra="forbid")

    action: ActionKind
    memory: Memory
    old: Memory | None = None
    reason: str = ""
