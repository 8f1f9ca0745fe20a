"""Browsing a workspace for people (the web inspector): its users with their counts, and pages of a user's
memories that cost what one page holds, however many memories there are.

Pages without a text filter are read by place, not by offset (keyset paging): a page is the ``limit`` memories
just after (or before) the last one shown, in the order of :meth:`VectorStore.iterate`, one
:meth:`VectorStore.adjacent` read each — page 5,000 of 100,000 memories costs what page 1 does. A text filter
is the store's word search (BM25, :meth:`VectorStore.lexical_search`): the :data:`TEXT_HITS` best matches,
sorted and paged like the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from flowmem.core.errors import InputError, Problem
from flowmem.memories.writing import scope_user
from flowmem.schema.kinds import MEMORY_TYPES, MemoryStatus, MemoryType
from flowmem.schema.memory import Memory
from flowmem.scoring.derive import SESSION
from flowmem.vector_store.base import END_OF_TIME, LAST_ID, MAX_ADJACENT
from flowmem.vector_store.filters import MemoryFilter

if TYPE_CHECKING:
    from flowmem.memories.service import Memories

Order = Literal["newest", "oldest"]
TEXT_HITS = 500  # the best word matches a text filter pages through
# Before every memory a store holds: the place a page of the oldest starts after.
START_OF_TIME, FIRST_ID = datetime(1, 1, 1), "!"


@dataclass
class UserSummary:
    """One user of a workspace: how many memories (valid, expired, per type) and their latest one's time."""

    user_id: str
    valid: int
    expired: int
    by_type: dict[str, int]
    last_memory: datetime | None


@dataclass
class UserList:
    """A page of a workspace's users (sorted by id) and how many there are."""

    users: list[UserSummary]
    total: int
    offset: int


@dataclass
class BrowsePage:
    """One page of a user's memories.

    Attributes:
        memories: The page, in the order asked.
        total: How many memories match (with a text filter: how many of the best :data:`TEXT_HITS` matches).
        next: The place after this page (``after``/``before``/``offset`` and its value), or ``None`` at the end.
        previous: The place before it, or ``None`` on the first page.
    """

    memories: list[Memory]
    total: int
    next: dict[str, str] | None = None
    previous: dict[str, str] | None = None
    notes: list[str] = field(default_factory=list)


def place_of(memory: Memory) -> str:
    """A memory's place in the listing order, as a page boundary: ``created_at|memory_id``."""
    return f"{memory.created_at.isoformat()}|{memory.memory_id}"


def _parse_place(value: str, name: str) -> tuple[datetime, str]:
    when, sep, memory_id = value.partition("|")
    try:
        if not sep or not memory_id:
            raise ValueError
        return datetime.fromisoformat(when), memory_id
    except ValueError:
        why = f"is not a place in the listing (created_at|memory_id), got {value!r}"
        raise InputError(Problem(name, why)) from None


async def users(core: Memories, workspace_id: str, *, limit: int = 50, offset: int = 0) -> UserList:
    """The workspace's users (whom its memories are about), sorted, ``limit`` from ``offset``, each counted."""
    scope_user(workspace_id, None)
    everyone = await core.store.targets(workspace_id)
    summaries = [await _summary(core, workspace_id, user) for user in everyone[offset : offset + limit]]
    return UserList(users=summaries, total=len(everyone), offset=offset)


async def _summary(core: Memories, workspace_id: str, user_id: str) -> UserSummary:
    store = core.store

    async def count(**conditions: object) -> int:
        return await store.count(workspace_id, MemoryFilter(target=user_id, **conditions))

    by_type = {kind: await count(memory_type=kind) for kind in MEMORY_TYPES}
    latest = await store.newest(workspace_id, MemoryFilter(target=user_id), limit=1)
    return UserSummary(
        user_id=user_id,
        valid=await count(status="valid"),
        expired=await count(status="expired"),
        by_type={kind: n for kind, n in by_type.items() if n},
        last_memory=latest[0].created_at if latest else None,
    )


async def browse(
    core: Memories,
    *,
    workspace_id: str,
    user_id: str,
    memory_type: Sequence[MemoryType] = (),
    status: MemoryStatus | None = None,
    text: str = "",
    since: datetime | None = None,
    until: datetime | None = None,
    order: Order = "newest",
    after: str | None = None,
    before: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> BrowsePage:
    """A page of ``user_id``'s memories: filtered, in ``order`` of creation, after (or before) a place.

    Args:
        since: Only memories created at or after this time; ``until``: before this time.
        after: Start just after this place (``BrowsePage.next``); ``before``: end just before it.
        offset: With ``text`` only: skip this many of the matches.
        limit: 1 to :data:`~flowmem.vector_store.base.MAX_ADJACENT` - 1.
    """
    scope_user(workspace_id, user_id)
    if not 1 <= limit < MAX_ADJACENT:
        raise InputError(Problem("limit", f"must be 1 to {MAX_ADJACENT - 1}, got {limit}"))
    flt = MemoryFilter(target=user_id, memory_type=tuple(memory_type) or None, status=status, created_after=since,
                       created_before=until)  # fmt: skip
    if text.strip():
        return await _by_text(core, workspace_id, flt, text, order, max(offset, 0), limit)
    total = await core.store.count(workspace_id, flt)
    newest = order == "newest"
    if before is not None:  # the page before a place: read towards the start of the order, then turn it round
        at, memory_id = _parse_place(before, "before")
        found = await _side(core, workspace_id, flt, at, memory_id, limit + 1, earlier=not newest)
        more_before, page = len(found) > limit, found[:limit][::-1]
    else:
        at, memory_id = _parse_place(after, "after") if after else ((END_OF_TIME, LAST_ID) if newest else
                                                                     (START_OF_TIME, FIRST_ID))  # fmt: skip
        found = await _side(core, workspace_id, flt, at, memory_id, limit + 1, earlier=newest)
        page = found[:limit]
        more_before = after is not None
    more_after = len(found) > limit if before is None else True
    return BrowsePage(
        memories=page,
        total=total,
        next={"after": place_of(page[-1])} if page and more_after else None,
        previous={"before": place_of(page[0])} if page and more_before else None,
    )


async def _side(
    core: Memories, workspace_id: str, flt: MemoryFilter, at: datetime, memory_id: str, count: int, *, earlier: bool
) -> list[Memory]:
    """The ``count`` memories created just before a place (``earlier``) or just after it, nearest first."""
    before, after = await core.store.adjacent(
        workspace_id, at, memory_id, flt, before=count if earlier else 0, after=0 if earlier else count
    )
    return before if earlier else after


async def _by_text(
    core: Memories, workspace_id: str, flt: MemoryFilter, text: str, order: Order, offset: int, limit: int
) -> BrowsePage:
    hits = await core.store.lexical_search(workspace_id, text, TEXT_HITS, flt)
    hits.sort(key=lambda m: (m.created_at, m.memory_id), reverse=order == "newest")
    page = hits[offset : offset + limit]
    notes = [f"the {TEXT_HITS} best word matches only: narrow the text"] if len(hits) == TEXT_HITS else []
    return BrowsePage(
        memories=page,
        total=len(hits),
        next={"offset": str(offset + limit)} if offset + limit < len(hits) else None,
        previous={"offset": str(max(offset - limit, 0))} if offset > 0 else None,
        notes=notes,
    )


SESSION_SCAN = 200  # the user's newest memories a chat session's page looks through for the ones it flushed


@dataclass
class SessionMemories:
    """The memories a chat session flushed to long-term memory, newest first, from a bounded read.

    Attributes:
        memories: Those of the user's newest :attr:`scanned` memories whose ``metadata["session"]`` is the session.
        scanned: How many of the user's newest memories were read (at most :data:`SESSION_SCAN`).
        more: The user has more memories than were read: older flushes of the session are not shown.
    """

    memories: list[Memory]
    scanned: int
    more: bool


async def of_session(
    core: Memories, *, workspace_id: str, user_id: str, session_id: str, scan: int = SESSION_SCAN
) -> SessionMemories:
    """What chat session ``session_id`` flushed to ``user_id``'s long-term memory: the memories written from its
    messages (each keeps the session in ``metadata["session"]``, :data:`flowmem.scoring.derive.PROVENANCE`).

    The store's filters cannot name a metadata key, so this reads the user's ``scan`` newest memories (one
    ordered, limited read, :meth:`VectorStore.newest`) and keeps the session's: a flush older than those is
    not found (``more`` says the read stopped short of the user's oldest memory).
    """
    scope_user(workspace_id, user_id)
    if not 1 <= scan <= MAX_ADJACENT - 1:
        raise InputError(Problem("scan", f"must be 1 to {MAX_ADJACENT - 1}, got {scan}"))
    newest = await core.store.newest(workspace_id, MemoryFilter(target=user_id), limit=scan + 1)
    read = newest[:scan]
    found = [m for m in read if m.metadata.get(SESSION) == session_id]
    return SessionMemories(memories=found, scanned=len(read), more=len(newest) > scan)
