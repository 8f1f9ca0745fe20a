"""Chat sessions in a vector store: the short-term memory of ``short_term_memory_op``, kept durably.

Part of the :class:`~flowmem.vector_store.base.VectorStore` base (a mixin only to keep modules
small): the scope rules of sessions live here, once, before any backend sees a call. A session is
keyed by (workspace, user, session id): the workspace and the user are mandatory on every call, so
no call reaches another tenant's or another user's session, and two users may both have ``s1``.
``forget`` erases a user's sessions with the rest of their share (each backend's ``_forget``).

Writes are whole-record replaces with optimistic versioning: :meth:`put_session` stores
``session`` only if the stored version is ``session.version - 1`` (none stored: ``version`` 1);
otherwise :class:`SessionConflictError` — two concurrent turns of one session never silently
drop each other's message.
"""

from __future__ import annotations

import contextlib

from flowmem.schema.session import ChatSession
from flowmem.vector_store.erasure import ErasureGate, Fence
from flowmem.vector_store.rules import ScopeError, SessionConflictError, check_scope

__all__ = ["ChatSession", "SessionConflictError", "SessionStore"]


class SessionStore:
    """The session half of the store interface. Backends implement ``_get_session``, ``_put_session``,
    ``_delete_session`` (and erase sessions in ``_forget``)."""

    _gate: ErasureGate  # set by VectorStore.__init__

    async def get_session(self, workspace_id: str, user_id: str, session_id: str) -> ChatSession | None:
        """The stored session, or ``None`` when there is none.

        Raises:
            ScopeError: No workspace or no user.
        """
        _check(workspace_id, user_id, session_id)
        found = await self._get_session(workspace_id, user_id, session_id)
        if found is None or (found.workspace_id, found.user_id, found.session_id) != (
            workspace_id, user_id, session_id,
        ):  # fmt: skip
            return None
        return found

    async def put_session(self, session: ChatSession, *, fence: Fence | None = None) -> None:
        """Store ``session`` (replacing the stored one) if nobody wrote it since it was read, and its user was
        not forgotten since ``fence`` was read (:meth:`VectorStore.fence`, before reading the session).

        Raises:
            ScopeError: No workspace or no user.
            InputError: A user or session id that breaks the id rule.
            SessionConflictError: The stored version is not ``session.version - 1``.
            WriteConflictError: A forget of the workspace or of the user ran since ``fence`` was read.
        """
        _check(session.workspace_id, session.user_id, session.session_id)
        if session.version < 1:
            raise SessionConflictError(f"a session write stores version 1 or more, got {session.version}")
        if fence is not None and fence.workspace_id != session.workspace_id:
            why = f"a fence of workspace '{fence.workspace_id}' given to a session of '{session.workspace_id}'"
            raise ScopeError(why)
        async with self._gate.writing(session.workspace_id) if fence is not None else contextlib.nullcontext():
            stored = await self._put_session(session, fence)
        if not stored:
            raise SessionConflictError(
                f"chat session '{session.session_id}' of user '{session.user_id}' was written by another call "
                f"since it was read (this write was version {session.version}); read it again and retry"
            )

    async def delete_session(self, workspace_id: str, user_id: str, session_id: str) -> bool:
        """Delete the session; whether it existed."""
        _check(workspace_id, user_id, session_id)
        return await self._delete_session(workspace_id, user_id, session_id)

    # -- what backends implement ---------------------------------------------------------------
    async def _get_session(self, workspace_id: str, user_id: str, session_id: str) -> ChatSession | None:
        raise NotImplementedError

    async def _put_session(self, session: ChatSession, fence: Fence | None) -> bool:
        """Store it if the stored version is ``session.version - 1`` (or none is stored and it is 1); whether it was.

        Raises :class:`~flowmem.core.errors.WriteConflictError` (nothing stored) if ``fence`` is stale."""
        raise NotImplementedError

    async def _delete_session(self, workspace_id: str, user_id: str, session_id: str) -> bool:
        raise NotImplementedError


def _check(workspace_id: str, user_id: str, session_id: str) -> None:
    # The id rule on reads and deletes too: no session could be stored under an id that breaks it.
    check_scope(workspace_id, user_id=user_id, session_id=session_id)
