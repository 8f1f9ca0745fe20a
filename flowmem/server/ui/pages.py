"""The inspector's pages that read: a workspace's users, a user's memories, a search explained, one memory
with its history, and the dry run of a forget. Each is one or two calls of the memory service after the
session's key is checked for the workspace."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Query
from fastapi.responses import Response

from flowmem.core.errors import InputError, NotFoundError, Problem
from flowmem.memories import browse
from flowmem.memories.flows import writes_memories
from flowmem.schema.kinds import MEMORY_TYPES, MemoryStatus, MemoryType
from flowmem.schema.memory import Memory
from flowmem.server.ui.app import Session, State
from flowmem.server.ui.render import explained, near_misses, notes, page

router = APIRouter()
T = TypeVar("T")
PAGE = 50
USERS_PAGE = 50


@router.get("/w/{workspace}")
async def users(workspace: str, session: Session, state: State, offset: Annotated[int, Query(ge=0)] = 0) -> Response:
    session.grant.check(workspace)
    found = await browse.users(state.memories, workspace, limit=USERS_PAGE, offset=offset)
    return page("users.html", session=session, workspace=workspace, found=found, page_size=USERS_PAGE,
                types=MEMORY_TYPES, title=f"Users of {workspace}")  # fmt: skip


@router.get("/w/{workspace}/u/{user}")
async def memories(
    workspace: str,
    user: str,
    session: Session,
    state: State,
    memory_type: Annotated[MemoryType | Literal[""], Query(alias="type")] = "",
    status: MemoryStatus | Literal[""] = "",
    text: str = "",
    since: str = "",
    until: str = "",
    order: browse.Order = "newest",
    after: str | None = None,
    before: str | None = None,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> Response:
    session.grant.check(workspace)
    found = await browse.browse(
        state.memories, workspace_id=workspace, user_id=user, memory_type=(memory_type,) if memory_type else (),
        status=status or None, text=text, since=_parsed("since", since, _day), until=_parsed("until", until, _day),
        order=order, after=after, before=before, offset=offset, limit=PAGE,
    )  # fmt: skip
    filters = {"type": memory_type, "status": status, "text": text, "since": since, "until": until, "order": order}
    return page("memories.html", session=session, workspace=workspace, user=user, found=found, filters=filters,
                types=MEMORY_TYPES, title=f"Memories of {user}")  # fmt: skip


@router.get("/w/{workspace}/u/{user}/search")
async def search(
    workspace: str,
    user: str,
    session: Session,
    state: State,
    q: str = "",
    at: str = "",
    flow: str = "personal_retrieve",
    top_k: str = "",
) -> Response:
    session.grant.check(workspace)
    flows = _retrieval_flows(state)
    context: dict[str, Any] = {"q": q, "at": at, "flow": flow, "top_k": top_k, "flows": flows}
    if q.strip():
        if flow not in flows:
            raise NotFoundError(f"'{flow}' is not a retrieval flow of this server (flows: {', '.join(flows)})")
        asked = _parsed("at", at, datetime.fromisoformat)
        result = await state.search(q, user_id=user, workspace_id=workspace, flow=flow,
                                    top_k=_parsed("top_k", top_k, _top_k), timestamp=asked)  # fmt: skip
        context |= {"results": explained(result.memories), "misses": near_misses(result.response),
                    "notes": notes(result.response), "warnings": result.warnings}  # fmt: skip
    return page("search.html", session=session, workspace=workspace, user=user, title=f"Search {user}'s memories",
                **context)  # fmt: skip


@router.get("/w/{workspace}/m/{memory_id}")
async def memory(workspace: str, memory_id: str, session: Session, state: State, done: str = "") -> Response:
    session.grant.check(workspace)
    found = await state.memories.get_many([memory_id], workspace_id=workspace)
    events = await state.memories.history(memory_id, workspace_id=workspace, limit=500)
    if not found and not events:
        raise NotFoundError(f"no memory with id '{memory_id}' in workspace '{workspace}'")
    current = found[0] if found else None
    # A deleted memory is shown as its last recorded state, from its history.
    shown = current or Memory.model_validate(events[-1].old or events[-1].new)
    return page("memory.html", session=session, workspace=workspace, memory=shown, deleted=current is None,
                events=events, links=_links(shown), done=DONE.get(done, ""), title="Memory")  # fmt: skip


@router.get("/w/{workspace}/u/{user}/session")
async def chat_session(
    workspace: str, user: str, session: Session, state: State, session_id: Annotated[str, Query(alias="id")] = ""
) -> Response:
    session.grant.check(workspace)
    found = session_id.strip()
    chat, flushed = None, None
    if found:
        flushed = await browse.of_session(state.memories, workspace_id=workspace, user_id=user, session_id=session_id)
        try:
            chat = await state.memories.session(session_id, user_id=user, workspace_id=workspace)
        except NotFoundError:
            if not flushed.memories:  # a cleared session still shows what it flushed
                raise
    return page("session.html", session=session, workspace=workspace, user=user, session_id=session_id, chat=chat,
                flushed=flushed, title=f"Chat session {session_id}" if found else "Chat session")  # fmt: skip


@router.get("/w/{workspace}/u/{user}/forget")
async def forget_preview(workspace: str, user: str, session: Session, state: State) -> Response:
    session.grant.check(workspace)
    counts = await state.memories.forget(workspace_id=workspace, user_id=user, dry_run=True)
    return page("forget.html", session=session, workspace=workspace, user=user, counts=counts, error="",
                done=False, title=f"Forget {user}")  # fmt: skip


DONE = {"edited": "Saved: the new text is re-embedded; the old one is in the history below.",
        "deleted": "Deleted: what it said is kept in its history below.",
        "expired": "Expired: kept, no longer current."}  # fmt: skip
LINKS = (("superseded_by", "Superseded by"), ("derived_from", "Derived from"), ("changed_by", "Changed by"))


def _links(memory: Memory) -> list[tuple[str, list[str]]]:
    """The memories this one names in its metadata (what replaced it, what it came from), as (label, ids)."""
    found = []
    for key, label in LINKS:
        value = memory.metadata.get(key)
        ids = [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)] if value else []
        if ids:
            found.append((label, ids))
    return found


def _parsed(name: str, value: str, parse: Callable[[str], T]) -> T | None:
    """A form field's value (``None`` when left empty), or an error naming the field."""
    try:
        return parse(value.strip()) if value.strip() else None
    except ValueError as exc:
        raise InputError(Problem(name, f"{value!r} is not valid: {exc}")) from None


def _day(value: str) -> datetime:
    """A date field (``2024-06-08``) or a date and time, as the browser's date inputs send them."""
    return datetime.fromisoformat(value)


def _top_k(value: str) -> int:
    number = int(value)
    if not 1 <= number <= 100:
        raise ValueError("give 1 to 100")
    return number


def _retrieval_flows(state: State) -> list[str]:
    flows = state.app.config.flow
    return [name for name in sorted(flows) if not writes_memories(state.app, name)]
