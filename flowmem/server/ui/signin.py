"""Signing in and out of the inspector, and its home page (the key's workspaces)."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from flowmem.server.auth import ALL, AuthError
from flowmem.server.ui.app import Form, Session, State, sessions_of
from flowmem.server.ui.render import HEADERS, PREFIX, page
from flowmem.server.ui.sessions import SIGNIN_COOKIE, set_cookie, signin_token, signin_token_ok

router = APIRouter()


@router.get("/signin")
async def signin_form(request: Request, state: State) -> Response:
    return _signin_page(request, state)


@router.post("/signin")
async def signin(request: Request, state: State) -> Response:
    form = await request.form()
    if not signin_token_ok(request, form.get("csrf")):
        return _signin_page(request, state, "the form expired or was sent from elsewhere: sign in again", 403)
    key = form.get("api_key")
    try:
        grant = state.keyring.grant({"authorization": f"Bearer {key if isinstance(key, str) else ''}"})
    except AuthError as exc:
        return _signin_page(request, state, str(exc), exc.status)
    response = RedirectResponse(f"{PREFIX}/", status_code=303, headers=HEADERS)
    sessions_of(request).start(grant, response, request)
    return response


@router.post("/signout")
async def signout(request: Request, session: Session, form: Form) -> Response:
    response = RedirectResponse(f"{PREFIX}/signin", status_code=303, headers=HEADERS)
    sessions_of(request).end(request, response)
    return response


@router.get("/")
async def home(session: Session, workspace: str = "") -> Response:
    if workspace.strip():
        return RedirectResponse(f"{PREFIX}/w/{quote(workspace.strip(), safe='')}", status_code=303, headers=HEADERS)
    workspaces = [] if ALL in session.grant.workspaces else list(session.grant.workspaces)
    if len(workspaces) == 1:
        return RedirectResponse(f"{PREFIX}/w/{quote(workspaces[0], safe='')}", status_code=303, headers=HEADERS)
    return page("home.html", session=session, workspaces=workspaces, title="Workspaces")


def _signin_page(request: Request, state: State, error: str = "", status: int = 200) -> Response:
    token = signin_token(request)
    response = page("signin.html", status, session=None, token=token, open=state.keyring.open, error=error,
                    title="Sign in")  # fmt: skip
    set_cookie(response, request, SIGNIN_COOKIE, token, 3600)
    return response
