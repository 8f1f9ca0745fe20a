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

Every change of a session's window is one of the writes here: a turn's new messages
(:meth:`append_to_session`, ``short_term_memory_op``), the flushed messages leaving once their write
was acknowledged (:meth:`trim_session`, the memory service), the newest message taken back
(:meth:`pop_from_session`) and a clear (:meth:`delete_session`, the service's one direct call). Each
reads the session, changes it and stores it one version on, and on a concurrent write reads it again
(:data:`WRITE_ATTEMPTS`): one rule of versions, fences and retries for every writer. Nothing outside
the store calls :meth:`put_session` (``tests/unit/memories/test_session_writer.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Sequence

from flowmem.schema.memory import Message
from flowmem.schema.session import ChatSession
from flowmem.vector_store.erasure import ErasureGate, Fence
from flowmem.vector_store.rules import ScopeError, SessionConflictError, check_scope

__all__ = ["WRITE_ATTEMPTS", "ChatSession", "SessionConflictError", "SessionStore"]

# A session write from a stale read is refused (another turn, pop or clear wrote it meanwhile); it is read and
# changed again, this many times at most.
WRITE_ATTEMPTS = 6


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

    async def append_to_session(
        self, workspace_id: str, user_id: str, session_id: str, messages: Sequence[Message], *, fence: Fence | None
    ) -> ChatSession:
        """Join ``messages`` to the end of the session's window (a new session when there is none); the stored session.

        Raises:
            WriteConflictError: The user was forgotten since ``fence`` was read (nothing stored).
            SessionConflictError: Other writes of the session kept coming for :data:`WRITE_ATTEMPTS` reads.
        """

        def joined(current: ChatSession | None) -> ChatSession:
            read = current or ChatSession(workspace_id=workspace_id, user_id=user_id, session_id=session_id)
            return read.next_version(messages=[*read.messages, *messages])

        stored = await self._change_session(workspace_id, user_id, session_id, joined, fence, "its messages were added")
        assert stored is not None  # joined() always stores
        return stored

    async def trim_session(
        self, workspace_id: str, user_id: str, session_id: str, flushed: Collection[str], summary: str
    ) -> ChatSession | None:
        """Take the messages of ids ``flushed`` out of the window, count them in ``flushed`` and store ``summary``:
        what follows an acknowledged flush. Nothing when the session is gone or none of them is left in it (another
        turn trimmed them); the stored session, else ``None``."""

        def trimmed(current: ChatSession | None) -> ChatSession | None:
            if current is None:
                return None  # cleared or forgotten meanwhile: nothing left to trim
            remaining = [m for m in current.messages if m.message_id not in flushed]
            if len(remaining) == len(current.messages):
                return None
            gone = len(current.messages) - len(remaining)
            return current.next_version(messages=remaining, summary=summary, flushed=current.flushed + gone)

        why = "its flushed messages were trimmed"
        return await self._change_session(workspace_id, user_id, session_id, trimmed, None, why)

    async def pop_from_session(
        self, workspace_id: str, user_id: str, session_id: str, *, fence: Fence | None
    ) -> Message | None:
        """Take the newest message out of the window and return it; ``None`` when there is none."""
        taken: list[Message] = []

        def popped(current: ChatSession | None) -> ChatSession | None:
            taken.clear()
            if current is None or not current.messages:
                return None
            taken.append(current.messages[-1])
            return current.next_version(messages=current.messages[:-1])

        why = "its newest message was taken out"
        await self._change_session(workspace_id, user_id, session_id, popped, fence, why)
        return taken[0] if taken else None

    async def _change_session(
        self,
        workspace_id: str,
        user_id: str,
        session_id: str,
        change: Callable[[ChatSession | None], ChatSession | None],
        fence: Fence | None,
        why: str,
    ) -> ChatSession | None:
        """Store ``change(stored session)`` (nothing when it gives ``None``), reading again on a concurrent write."""
        for _ in range(WRITE_ATTEMPTS):
            changed = change(await self.get_session(workspace_id, user_id, session_id))
            if changed is None:
                return None
            try:
                await self.put_session(changed, fence=fence)
            except SessionConflictError:
                continue  # another call wrote it since it was read: read it again
            return changed
        raise SessionConflictError(f"chat session '{session_id}' kept changing while {why}")

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
