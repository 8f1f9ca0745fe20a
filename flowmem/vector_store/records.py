"""The write path's records in a vector store: history events and the message ledger, and erasing a user.

Part of the :class:`~flowmem.vector_store.base.VectorStore` base (a mixin only to keep modules
small): the scope rules of these calls live here, once, before any backend sees a call. Events
and ledger entries are written by :meth:`VectorStore.write <flowmem.vector_store.base.VectorStore.write>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from flowmem.schema.history import HistoryEvent
from flowmem.vector_store.erasure import ErasureGate
from flowmem.vector_store.rules import check_ids, check_scope, check_user


class ForgetCounts(TypedDict):
    """What :meth:`VectorStore.forget` erased (or, on a dry run, would erase)."""

    memories: int
    messages: int  # message-ledger entries
    history: int  # history events
    sessions: int  # chat sessions (short-term memory)


class RecordStore:
    """The history, ledger and erasure half of the store interface. Backends implement ``_history``,
    ``_memorized``, ``_record_history``, ``_mark_memorized`` (or all of ``_write``) and ``_forget``."""

    _gate: ErasureGate  # set by VectorStore.__init__

    async def forget(self, workspace_id: str, user_id: str | None = None, *, dry_run: bool = False) -> ForgetCounts:
        """Erase everything this store holds of ``user_id`` in ``workspace_id`` — or, without a user, of the workspace.

        A user's share is their memories (``target == user_id``), their message-ledger entries,
        their chat sessions, and every history event that carries a record of theirs (``old`` or ``new`` with their
        ``target``) — so also the history of memories deleted before, which still holds their
        text. Afterwards no call of this store (get, search, iterate, count, history, memorized)
        returns any of it; other users of the workspace, and other workspaces, keep everything.
        Nothing records the erasure itself. A second call finds nothing (all counts 0).

        Forget wins over writes that race it (:mod:`~flowmem.vector_store.erasure`): it first advances the
        erasure generation of the user (or the workspace), so a write prepared before (under an older
        :class:`~flowmem.vector_store.erasure.Fence`) is refused, and within this store object it waits for
        the fenced writes under way in the workspace before erasing.

        Args:
            workspace_id: The workspace to erase in.
            user_id: Whose share to erase; ``None``: the whole workspace (memories, ledger, history).
            dry_run: Only count what would be erased; change nothing.

        Returns:
            How many memories, ledger entries (``messages``), history events and sessions were (or would be) erased.

        Raises:
            ScopeError: No workspace, or an empty user id.
        """
        # No id rule: a forget must reach whatever the store holds (a target may be any text; a workspace
        # may have been written before the rule covered workspace ids).
        check_scope(workspace_id, id_rule=False)
        if user_id is not None:
            check_user(user_id, id_rule=False)
        # Counts cannot be post-filtered: the backends erase by workspace (and target), as the
        # conformance suite proves (other workspaces and users keep everything).
        if dry_run:
            return await self._forget(workspace_id, user_id, dry_run)
        async with self._gate.erasing(workspace_id):
            return await self._forget(workspace_id, user_id, dry_run)

    async def history(self, workspace_id: str, memory_id: str | None = None, limit: int = 1000) -> list[HistoryEvent]:
        """What happened to ``memory_id`` (or to any memory of the workspace), oldest first."""
        check_scope(workspace_id)
        if memory_id is not None:
            check_ids("memory", [memory_id])
        return [e for e in await self._history(workspace_id, memory_id, limit) if e.workspace_id == workspace_id]

    async def memorized(self, workspace_id: str, user_id: str, message_ids: Sequence[str]) -> set[str]:
        """Which of ``user_id``'s messages the write path has already turned into memories.

        The ledger is per (workspace, user, message id): another user's ``m1`` is not this user's ``m1``.

        Raises:
            ScopeError: No workspace or no user id.
        """
        check_scope(workspace_id)
        check_user(user_id)
        if not message_ids:
            return set()
        asked = list(dict.fromkeys(message_ids))
        # Bare ids carry no workspace or user to check here: the backends' own scoping (keys of
        # (workspace, user, message)) is what conformance proves; the base keeps answers to ids asked.
        return await self._memorized(workspace_id, user_id, asked) & set(asked)

    async def _forget(self, workspace_id: str, user_id: str | None, dry_run: bool) -> ForgetCounts:
        """Erase (or with ``dry_run`` count) the share of :meth:`forget`; ``user_id`` is checked or ``None``.

        Unless ``dry_run``, the erasure generation of the user (``WORKSPACE`` without one) advances first
        (or in the same transaction), before anything is erased."""
        raise NotImplementedError

    async def _record_history(self, workspace_id: str, events: list[HistoryEvent]) -> None:
        raise NotImplementedError

    async def _history(self, workspace_id: str, memory_id: str | None, limit: int) -> list[HistoryEvent]:
        raise NotImplementedError

    async def _mark_memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> None:
        raise NotImplementedError

    async def _memorized(self, workspace_id: str, user_id: str, message_ids: list[str]) -> set[str]:
        raise NotImplementedError
