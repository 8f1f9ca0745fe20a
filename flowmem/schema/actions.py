"""Decisions of the write path: what to do with each new memory, and which messages it left out and why."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from flowmem.schema.memory import Memory, Message

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


ALREADY_MEMORIZED = "already memorized"


class SkippedMessage(BaseModel):
    """A message the write path left out, and why (nothing is dropped silently).

    The reasons are short and repeat, so they can be counted (:class:`~flowmem.memories.AddResult`
    ``skipped``): ``already memorized``, ``not the user's (name 'bob')``, ``not the user's (role 'assistant')``,
    ``empty``, ``noise: pleasantry``, ``noise: question``, ``noise: no first-person statement``,
    ``noise: scored 1 of 3 (keeps 2+)``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    message_id: str
    reason: str

    @classmethod
    def not_users(cls, message: Message) -> SkippedMessage:
        """``message`` is not the user's (:meth:`~flowmem.schema.memory.Message.is_users`): its role or its name."""
        why = f"name '{message.name.strip()}'" if message.role == "user" else f"role '{message.role}'"
        return cls(message_id=message.message_id, reason=f"not the user's ({why})")
