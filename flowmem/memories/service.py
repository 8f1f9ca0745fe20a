"""The memory service: every use case of flowmem's memories, behind ``app.memories``.

Transports (the CLI, the HTTP service, MCP) and the evaluation harness are thin callers of this
module: they parse, authorise and render; the behaviour lives here, once. Every call is scoped by
``workspace_id`` (the tenant) and, where it applies, ``user_id`` (whom the memories are about: a
memory's ``target``). Every write — a delete included — is one :meth:`VectorStore.write` call that
commits memories, their history and the message ledger together, so a crash never leaves one
without the other.

The core is async; :class:`flowmem.memories.SyncMemories` (``app.memories.sync``) is the same
calls for code without an event loop.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from flowmem.core.errors import InputError, NotFoundError, Problem, WriteConflictError
from flowmem.memories.flows import check_read_only
from flowmem.memories.importing import ImportCounts, ImportTarget, import_memories
from flowmem.memories.importing import Progress as ImportProgress
from flowmem.memories.results import AddResult, ForgetResult, MemoryPage, SearchResult
from flowmem.memories.writing import (
    Progress,
    add_messages,
    add_text,
    check_users,
    fits,
    now,
    numbered,
    parse_messages,
    scope_user,
    users_own,
)
from flowmem.schema.history import HistoryEvent
from flowmem.schema.kinds import ADD_TEXT_FLOW, APPEND_FLOW, CONTEXT_FLOW, DEFAULT_WORKSPACE, WRITE_FLOW
from flowmem.schema.kinds import SEARCH_FLOW as SEARCH_FLOW  # re-exported: the integrations import it from here
from flowmem.schema.memory import Memory, MemoryStatus, MemoryType, Message
from flowmem.schema.session import ChatSession
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.rules import check_scope

if TYPE_CHECKING:
    from flowmem.flow.runtime import Runtime
    from flowmem.memories.chat import ContextResult
    from flowmem.memories.sync import SyncMemories
    from flowmem.vector_store.base import VectorStore
    from flowmem.vector_store.erasure import Fence

BATCH = 50


class Memories:
    """Add, search, read, edit and forget memories.

    Args:
        app: The configured app whose flows, store and embedding model the calls use.
        store: The ``vector_store`` entry to use (default ``"default"``).
    """

    def __init__(self, app: Runtime, store: str = "default"):
        self.app = app
        self.store_name = store

    @property
    def store(self) -> VectorStore:
        return self.app.vector_store(self.store_name)

    @property
    def sync(self) -> SyncMemories:
        """The same calls, blocking (they run on the app's own event loop)."""
        from flowmem.memories.sync import SyncMemories

        return SyncMemories(self)

    # -- writes through the write path ---------------------------------------------------------
    async def add(
        self,
        messages: Sequence[Message | dict[str, Any]] | None = None,
        *,
        text: str | None = None,
        user_id: str,
        workspace_id: str = DEFAULT_WORKSPACE,
        timestamp: datetime | None = None,
        flow: str | None = None,
        batch: int = BATCH,
        progress: Progress | None = None,
        strict: bool = False,
    ) -> AddResult:
        """Remember chat ``messages`` (through the write flow) or one ``text`` as given.

        Messages are filtered, turned into typed, timed memories, and de-duplicated against what is
        remembered (updating near-duplicates, expiring superseded single-valued facts) by the write flow
        (``personal_summary`` unless ``flow`` names another), oldest first, ``batch`` at a time; messages
        this user's ledger already holds are skipped, so sending the same messages again adds nothing.
        A message is the user's when its role is ``user`` and its ``name`` is ``user_id`` (or empty); the others
        (the assistant's replies, other people's messages), and the user's messages filtered as noise, are
        skipped and counted by reason in ``result.skipped`` — nothing is dropped silently.
        ``text`` is stored as one ``observation`` memory in its own words (no filter), said at
        ``timestamp`` (default now), and de-duplicated the same way (flow ``personal_add``).

        An op that degrades (an LLM call that failed, a reply it could not use) goes on with its offline
        fallback and is counted in ``result.degradations``. With ``strict``, the first degradation stops
        the add instead: the batch it happened in is not written (the write flows write in their last op,
        and the run stops right after the op that degraded); batches before it were written and stay.

        Returns:
            Every decision taken, with memory ids, and every degradation, counted.

        Raises:
            InputError: Neither or both of ``messages`` and ``text``, an empty user or workspace, a bad message,
                or messages none of which is the user's (the message names the names found).
            DegradedError: ``strict`` and an op degraded; ``error.partial`` is the ``AddResult`` of what was
                written before (empty for ``text``).
        """
        check_scope(workspace_id, user_id=user_id)
        if (messages is None) == (text is None):
            raise InputError(Problem("add", 'give either messages=[…] or text="…", not both and not neither'))
        if batch < 1:
            raise InputError(Problem("batch", f"must be at least 1, got {batch}"))
        if text is not None:
            return await add_text(self, text, user_id, workspace_id, timestamp, flow or ADD_TEXT_FLOW, strict)
        assert messages is not None
        parsed = parse_messages(messages)
        check_users(parsed, user_id)
        return await add_messages(self, parsed, user_id, workspace_id, flow or WRITE_FLOW, batch, progress, strict)

    # -- chat turns with short-term memory (flowmem.memories.chat) ------------------------------------
    async def context(
        self,
        message: str,
        *,
        user_id: str,
        session_id: str,
        workspace_id: str = DEFAULT_WORKSPACE,
        token_limit: int | None = None,
        reply: str | None = None,
        timestamp: datetime | None = None,
        flow: str = CONTEXT_FLOW,
    ) -> ContextResult:
        """One chat turn: ``message`` joins the session's short-term memory, and the context for the reply comes back.

        The session (per workspace, user and ``session_id``) is stored durably with the new message
        (and ``reply``, the assistant's answer to the previous message, before it). When its window
        passes ``chat_history_token_ratio`` of ``token_limit``, the oldest messages are flushed to
        long-term memory through the write flow (as :meth:`add` does) and only then leave the window;
        a rolling ``summary`` keeps what they said. Memories are retrieved for ``message``.

        Args:
            message: The user's new chat message.
            session_id: The chat session (any id; a new one starts empty).
            token_limit: The prompt's token budget (default: the flow's ops' own), for every op of the
                flow that has one (the short-term window and the context assembler).
            reply: The assistant's answer to the session's previous message, recorded before ``message``.
            timestamp: When the message was sent (default now).
            flow: The turn's flow (``chat_context``).

        Returns:
            The context messages for the reply, the window, the summary, the memories and what was flushed.

        Raises:
            InputError: An empty message, user, workspace or session id, or a ``token_limit`` below 1.
        """
        from flowmem.memories import chat

        return await chat.context(
            self, message, user_id=user_id, workspace_id=workspace_id, session_id=session_id,
            token_limit=token_limit, reply=reply, timestamp=timestamp, flow=flow,
        )  # fmt: skip

    async def add_to_session(
        self,
        session_id: str,
        messages: Sequence[Message | dict[str, Any]],
        *,
        user_id: str,
        workspace_id: str = DEFAULT_WORKSPACE,
        token_limit: int | None = None,
        flow: str = APPEND_FLOW,
    ) -> ContextResult:
        """Append ``messages`` to a chat session's window as given, flushing the oldest as :meth:`context` does.

        For callers that keep their own turns (an agent framework's session: tool calls and results, several
        messages at once): nothing is retrieved. The user's own messages (role ``user``, ``name`` the user or
        empty) become long-term memories when they are flushed; the others stay only in the window.

        Returns:
            The window, the summary and what was flushed (``messages`` and ``memories`` are empty).

        Raises:
            InputError: No messages, a bad message, an empty user, workspace or session id, or a ``token_limit``
                below the flow's least.
        """
        from flowmem.memories import chat

        return await chat.append(
            self, parse_messages(messages), user_id=user_id, workspace_id=workspace_id, session_id=session_id,
            token_limit=token_limit, flow=flow,
        )  # fmt: skip

    async def pop_from_session(
        self, session_id: str, *, user_id: str, workspace_id: str = DEFAULT_WORKSPACE
    ) -> Message | None:
        """Take the newest message out of a chat session's window and return it (``None`` when the window is empty
        or there is no such session). What was flushed already stays in long-term memory."""
        from flowmem.memories import chat

        return await chat.pop(self, session_id, user_id, workspace_id)

    async def session(self, session_id: str, *, user_id: str, workspace_id: str = DEFAULT_WORKSPACE) -> ChatSession:
        """A chat session's short-term memory: its window (oldest first), summary, and how many messages it flushed.

        Raises:
            NotFoundError: The user has no such session in the workspace.
        """
        from flowmem.memories import chat

        return await chat.show(self, session_id, user_id, workspace_id)

    async def clear_session(self, session_id: str, *, user_id: str, workspace_id: str = DEFAULT_WORKSPACE) -> bool:
        """Delete a chat session (its window and summary); whether it existed.

        Messages still in the window are not flushed first: what was flushed before stays in long-term memory,
        the rest is gone (``add`` them to keep them).
        """
        from flowmem.memories import chat

        return await chat.clear(self, session_id, user_id, workspace_id)

    # -- reads -----------------------------------------------------------------------------------
    async def search(
        self,
        query: str,
        *,
        user_id: str,
        workspace_id: str = DEFAULT_WORKSPACE,
        flow: str = SEARCH_FLOW,
        top_k: int | None = None,
        timestamp: datetime | None = None,
    ) -> SearchResult:
        """The user's memories for ``query``, best first, every score factor kept (``memory.scores``).

        Args:
            query: The question or text to recall memories for.
            flow: The retrieval flow (``personal_retrieve``; ``flowmem flows`` lists others).
            top_k: How many memories at most (default: the flow's own).
            timestamp: When the question is asked ("last weekend" is relative to it); default now.

        Raises:
            ConfigError: No such flow.
            InputError: A bad workspace or user id; a flow that writes memories (search runs read-only flows, and
                the message lists them).
        """
        check_scope(workspace_id, user_id=user_id)
        check_read_only(self.app, flow)
        inputs: dict[str, Any] = {"query": query, "user_id": user_id, "workspace_id": workspace_id}
        if top_k is not None:
            inputs["top_k"] = top_k
        if timestamp is not None:
            inputs["timestamp"] = timestamp
        response = await self.app.run(flow, **inputs)
        return SearchResult(
            memories=list(response.memories),
            answer=response.answer,
            warnings=list(response.warnings),
            response=response,
        )

    async def get(self, memory_id: str, *, workspace_id: str = DEFAULT_WORKSPACE, user_id: str | None = None) -> Memory:
        """One memory by id; with ``user_id``, only if it is that user's (its ``target``).

        Raises:
            NotFoundError: No memory with that id in the workspace — or, with ``user_id``, none of theirs
                (the same words: a caller scoped to one user learns nothing of other users' ids).
        """
        found = await self.get_many([memory_id], workspace_id=workspace_id, user_id=user_id)
        if not found:
            raise NotFoundError(f"no memory with id '{memory_id}' in workspace '{workspace_id}'")
        return found[0]

    async def get_many(
        self, memory_ids: Sequence[str], *, workspace_id: str = DEFAULT_WORKSPACE, user_id: str | None = None
    ) -> builtins.list[Memory]:
        """The memories with these ids, in the order asked; ids the workspace does not hold (with ``user_id``:
        memories of other users too) are left out."""
        scope_user(workspace_id, user_id)
        return [m for m in await self.store.get(workspace_id, memory_ids) if users_own([m.target], user_id)]

    async def list(
        self,
        *,
        workspace_id: str = DEFAULT_WORKSPACE,
        user_id: str | None = None,
        memory_type: MemoryType | Sequence[MemoryType] | None = None,
        status: MemoryStatus | None = None,
        limit: int | None = 20,
        offset: int = 0,
    ) -> MemoryPage:
        """A page of the workspace's memories (oldest first), filtered, with the total that match.

        Args:
            user_id: Only this user's memories (their ``target``).
            limit: At most this many (``None``: all from ``offset`` on).
            offset: Skip this many first; ``page.next_offset`` is where the next page starts.

        Raises:
            InputError: ``limit`` below 1 or a negative ``offset``.
        """
        scope_user(workspace_id, user_id)
        if limit is not None and limit < 1:
            raise InputError(Problem("limit", f"must be 1 or more (or None for all), got {limit}"))
        if offset < 0:
            raise InputError(Problem("offset", f"must be 0 or more, got {offset}"))
        flt = MemoryFilter(target=user_id, memory_type=memory_type, status=status)
        total = await self.store.count(workspace_id, flt)
        wanted = total if limit is None else limit
        page: builtins.list[Memory] = []
        seen = 0
        if offset < total:
            async for chunk in self.store.iterate(workspace_id, flt, batch_size=min(max(offset + wanted, 100), 1000)):
                take = chunk[max(offset - seen, 0) :]
                seen += len(chunk)
                page += take[: wanted - len(page)]
                if len(page) >= wanted:
                    break
        return MemoryPage(memories=page, total=total, offset=offset, limit=wanted)

    async def history(
        self,
        memory_id: str | None = None,
        *,
        workspace_id: str = DEFAULT_WORKSPACE,
        limit: int = 1000,
        user_id: str | None = None,
    ) -> builtins.list[HistoryEvent]:
        """What happened to ``memory_id`` (or to any memory of the workspace), oldest first; with ``user_id``,
        only events of that user's memories (of the workspace's ``limit`` latest, when no ``memory_id``)."""
        scope_user(workspace_id, user_id)
        if limit < 1:
            raise InputError(Problem("limit", f"must be at least 1, got {limit}"))
        events = await self.store.history(workspace_id, memory_id, limit)
        return [e for e in events if users_own(e.targets, user_id)]

    async def export(
        self, *, workspace_id: str = DEFAULT_WORKSPACE, user_id: str | None = None, with_vectors: bool = True
    ) -> AsyncIterator[Memory]:
        """Every memory of the workspace (of ``user_id`` only, if given), oldest first."""
        scope_user(workspace_id, user_id)
        flt = MemoryFilter(target=user_id) if user_id else None
        async for chunk in self.store.iterate(workspace_id, flt, batch_size=1000, with_vectors=with_vectors):
            for memory in chunk:
                yield memory

    async def stats(self, *, workspace_id: str | None = None) -> dict[str, Any]:
        """What the store holds: backend facts and memories per workspace; with ``workspace_id``, only that
        workspace's count (nothing about any other workspace, not even its name)."""
        if workspace_id is None:
            return await self.store.stats()
        check_scope(workspace_id)
        return await self.store.workspace_stats(workspace_id)

    async def check(self) -> builtins.list[tuple[str, str | None]]:
        """The store's read-only health checks: (what was checked, ``None`` when sound, else the problem)."""
        return await self.store.check()

    # -- direct edits ----------------------------------------------------------------------------
    async def update(
        self, memory_id: str, content: str, *, workspace_id: str = DEFAULT_WORKSPACE, user_id: str | None = None
    ) -> Memory:
        """Replace a memory's text: re-embedded, keywords and event time read again, an ``update`` in its history.

        The single-valued facts found in the old words (``metadata["slots"]``, see ``contra_repeat_op``) and an
        LLM's key for them (``metadata["llm_key"]``) are dropped with them: the op reads the new words' slots,
        with the slot rules it is configured with, when the memory is next a candidate for being superseded,
        and the store builds the new words' expanded key when it writes them.

        Raises:
            NotFoundError: No memory with that id in the workspace (with ``user_id``: none of that user's).
            InputError: Empty content.
        """
        from flowmem.scoring.derive import keywords_of, with_event_time
        from flowmem.scoring.keys import LLM_KEY
        from flowmem.scoring.slots import SLOTS_KEY

        if not content.strip():
            raise InputError(Problem("content", "is empty; give the memory's new text (or delete it)"))
        fits(self, content, "content")
        old = await self.get(memory_id, workspace_id=workspace_id, user_id=user_id)
        # Read before the write and checked when it lands (flowmem.vector_store.erasure): a forget of the user
        # meanwhile refuses it, and a memory deleted meanwhile is not written back.
        fence = await self.store.fence(workspace_id, [old.target])
        text = " ".join(content.split())
        said = old.message_time or old.created_at
        new = old.with_event_time(None)
        metadata = {key: value for key, value in old.metadata.items() if key not in (SLOTS_KEY, LLM_KEY)}
        new = with_event_time(new, text, said).model_copy(
            update={"content": text, "keywords": keywords_of(text), "updated_at": now(), "metadata": metadata}
        )
        new.vector = (await self.app.embedding_model().embed([text], kind="document"))[0]
        return await self._replace(old, new, HistoryEvent.of("update", old=old, new=new, reason="edited"), fence)

    async def expire(
        self,
        memory_id: str,
        *,
        workspace_id: str = DEFAULT_WORKSPACE,
        user_id: str | None = None,
        reason: str = "expired by hand",
    ) -> Memory:
        """Mark a memory expired, as a superseded fact is: kept (never deleted), no longer current, an ``expire``
        in its history with ``reason``.

        Raises:
            NotFoundError: No memory with that id in the workspace (with ``user_id``: none of that user's).
            InputError: It is expired already.
        """
        old = await self.get(memory_id, workspace_id=workspace_id, user_id=user_id)
        if old.status == "expired":
            raise InputError(Problem("memory_id", f"'{memory_id}' is expired already"))
        fence = await self.store.fence(workspace_id, [old.target])  # as update: a forget meanwhile refuses it
        stored = await self.store.get(workspace_id, [memory_id], with_vectors=True)  # its words, so its vector
        new = (stored[0] if stored else old).model_copy(update={"status": "expired", "updated_at": now()})
        return await self._replace(old, new, HistoryEvent.of("expire", old=old, new=new, reason=reason), fence)

    async def _replace(self, old: Memory, new: Memory, event: HistoryEvent, fence: Fence) -> Memory:
        """Write ``new`` over ``old`` with its history ``event``, if ``old`` is still stored and its user was not
        forgotten since ``fence`` was read."""
        workspace_id, memory_id = old.workspace_id, old.memory_id
        try:
            await self.store.write(workspace_id, [new], history=[event], fence=fence, must_exist=[memory_id])
        except (NotFoundError, WriteConflictError) as exc:
            raise NotFoundError(
                f"no memory with id '{memory_id}' in workspace '{workspace_id}' any more: it was deleted (or its "
                "user forgotten) while it was being changed; nothing was changed"
            ) from exc
        return new

    async def delete(
        self,
        memory_ids: str | Sequence[str] = (),
        *,
        workspace_id: str = DEFAULT_WORKSPACE,
        source_message: str | Sequence[str] = (),
        user_id: str | None = None,
        reason: str = "deleted",
    ) -> builtins.list[str]:
        """Delete memories by id and/or every memory ``user_id`` derived from ``source_message``; each gets a
        ``delete`` event in its history, written with the delete.

        A message is identified by (workspace, user, message id) — two users may both have sent ``m1`` —
        so deleting by source message needs the user. With ``user_id``, only that user's memories are deleted
        (an id of another user's is skipped, like a missing one).

        Returns:
            The ids that existed and are now gone.
        """
        check_scope(workspace_id)
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        sources = [source_message] if isinstance(source_message, str) else list(source_message)
        if not ids and not sources:
            raise InputError(Problem("delete", "give memory ids, or source_message=MESSAGE_ID with user_id"))
        if sources:
            check_scope(workspace_id, user_id=user_id)
        for message_id in sources:
            flt = MemoryFilter(source=message_id, target=user_id)
            async for chunk in self.store.iterate(workspace_id, flt, batch_size=500):
                ids += [m.memory_id for m in chunk]
        doomed = await self.get_many(list(dict.fromkeys(ids)), workspace_id=workspace_id, user_id=user_id)
        if sources:
            reason = f"{reason} (derived from {', '.join(sources)}, messages of {user_id})"
        if doomed:  # read again under the fence: a forget meanwhile erased them, and their text stays erased
            fence = await self.store.fence(workspace_id, [m.target for m in doomed])
            doomed = await self.get_many([m.memory_id for m in doomed], workspace_id=workspace_id, user_id=user_id)
        events = [HistoryEvent.of("delete", old=m, reason=reason) for m in doomed]
        if doomed:
            try:
                await self.store.write(workspace_id, history=events, deleted=[m.memory_id for m in doomed], fence=fence)
            except WriteConflictError:
                return []  # their user was forgotten meanwhile: the forget erased them (and wins)
        return [m.memory_id for m in doomed]

    async def forget(
        self, *, workspace_id: str | None = None, user_id: str | None = None, dry_run: bool = False
    ) -> ForgetResult:
        """Erase a user's memories, message ledger, history and chat sessions — or, without ``user_id``, the
        whole workspace's.

        Afterwards nothing of theirs is readable by any call; other users of the workspace keep everything.
        Nothing records the erasure itself (a history of a forgotten user would keep what was forgotten).
        With ``dry_run`` nothing is erased: the counts say what would be.

        Args:
            workspace_id: The workspace; with ``user_id`` it defaults to the default workspace, like every other
                call. Erasing a whole workspace needs it named: ``forget()`` alone is refused.
            user_id: Whose data; ``None`` erases the whole (named) workspace.
        """
        if workspace_id is None:
            if user_id is None:
                raise InputError(Problem("user_id", "is needed to forget one user (or name workspace_id to erase "
                                         "a whole workspace)"))  # fmt: skip
            workspace_id = DEFAULT_WORKSPACE
        scope_user(workspace_id, user_id, id_rule=False)  # a forget reaches whatever ids the store holds
        counts = await self.store.forget(workspace_id, user_id, dry_run=dry_run)
        return ForgetResult(workspace_id=workspace_id, user_id=user_id, **counts)

    async def import_(
        self,
        memories: Iterable[Memory | tuple[int, Memory]],
        *,
        workspace_id: str = DEFAULT_WORKSPACE,
        keep_workspaces: bool = False,
        from_workspace: str | None = None,
        embedding: str = "default",
        source: str = "<input>",
        reason: str = "imported",
        progress: ImportProgress | None = None,
    ) -> ImportCounts:
        """Store ready-made memories (as :meth:`export` gives them) in ``workspace_id``.

        The workspace comes from the caller: a memory naming another workspace is an error, unless
        ``keep_workspaces`` (each goes where it says) or it names ``from_workspace`` (moved here).
        Memories without a vector are embedded with ``embedding``; a memory whose id exists is replaced
        with an ``update`` in its history (``add`` otherwise), written together. Records may be memories
        or ``(line number, memory)`` pairs (errors then name the line of ``source``).
        """
        check_scope(workspace_id)
        records = numbered(self, memories, source)
        target = ImportTarget(workspace=workspace_id, keep_workspaces=keep_workspaces, from_workspace=from_workspace)
        embedder = self.app.embedding_model(embedding)
        return await import_memories(
            records, self.store, embedder, target, source=source, reason=reason, progress=progress
        )
