"""The inspector's forms that write: edit a memory's text, expire it, delete it, forget a user. Each needs the
session's CSRF token (:func:`~flowmem.server.ui.app.posted`) and a read-write key for the workspace, checked
before the memory service is called; each is one call of it, and a history event (a forget erases the
history it would have written to)."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter
from fastapi.responses import RedirectResponse, Response

from flowmem.core.errors import InputError, Problem
from flowmem.server.ui.app import Form, Session, State
from flowmem.server.ui.render import HEADERS, PREFIX, page

router = APIRouter()


def _back(workspace: str, memory_id: str, done: str) -> Response:
    url = f"{PREFIX}/w/{quote(workspace, safe='')}/m/{quote(memory_id, safe='')}?done={done}"
    return RedirectResponse(url, status_code=303, headers=HEADERS)


@router.post("/w/{workspace}/m/{memory_id}/edit")
async def edit(workspace: str, memory_id: str, session: Session, form: Form, state: State) -> Response:
    session.grant.check(workspace, write=True)
    await state.memories.update(memory_id, form.get("content", ""), workspace_id=workspace)
    return _back(workspace, memory_id, "edited")


@router.post("/w/{workspace}/m/{memory_id}/expire")
async def expire(workspace: str, memory_id: str, session: Session, form: Form, state: State) -> Response:
    session.grant.check(workspace, write=True)
    await state.memories.expire(memory_id, workspace_id=workspace, reason=f"expired in the inspector "
                        f"(key '{session.grant.name}')")  # fmt: skip
    return _back(workspace, memory_id, "expired")


@router.post("/w/{workspace}/m/{memory_id}/delete")
async def delete(workspace: str, memory_id: str, session: Session, form: Form, state: State) -> Response:
    session.grant.check(workspace, write=True)
    deleted = await state.memories.delete(memory_id, workspace_id=workspace,
                                          reason=f"deleted in the inspector (key '{session.grant.name}')")  # fmt: skip
    if not deleted:
        raise InputError(Problem("memory_id", f"'{memory_id}' was not there to delete (deleted already?)"))
    return _back(workspace, memory_id, "deleted")


@router.post("/w/{workspace}/u/{user}/forget")
async def forget(workspace: str, user: str, session: Session, form: Form, state: State) -> Response:
    session.grant.check(workspace, write=True)
    if form.get("confirm", "") != user:
        counts = await state.memories.forget(workspace_id=workspace, user_id=user, dry_run=True)
        return page(
            "forget.html",
            400,
            session=session,
            workspace=workspace,
            user=user,
            counts=counts,
            done=False,
            error=f"type the user's id, {user}, exactly to confirm; nothing was erased",
            title=f"Forget {user}",
        )
    counts = await state.memories.forget(workspace_id=workspace, user_id=user)
    return page("forget.html", session=session, workspace=workspace, user=user, counts=counts, done=True, error="",
                title=f"Forgot {user}")  # fmt: skip
