"""The web inspector at ``/ui``: server-rendered pages over the memory service, mounted on ``flowmem serve``.

It is a FastAPI app of its own, mounted by :func:`flowmem.server.app.create_app`, so its errors are pages, not
JSON; the server's Host and Origin rules, body limits and timeouts wrap it as they wrap ``/v1``. Auth is the
``/v1`` rule through a session (:mod:`flowmem.server.ui.sessions`): the key's workspaces are checked before
every call of the memory service, writes need a read-write key and a form's CSRF token. A server without
API keys (loopback only, see :func:`~flowmem.server.auth.check_bind`) signs a browser in without a key, with
every workspace, as ``/v1`` answers anyone on the machine; its forms still need the CSRF token.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Annotated

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from loguru import logger
from starlette.exceptions import HTTPException as StarletteHTTPException

from flowmem.core.errors import FlowmemError
from flowmem.core.redact import redact_text
from flowmem.server.errors import describe
from flowmem.server.routes import ServerState
from flowmem.server.ui.render import HEADERS, PREFIX, page
from flowmem.server.ui.sessions import UiSession, UiSessions


class SignInNeeded(Exception):
    """The request has no live session: it goes to the sign-in page."""


class CsrfError(Exception):
    """A form sent without its CSRF token (or with another session's)."""


def state_of(request: Request) -> ServerState:
    state: ServerState = request.app.state.flowmem
    return state


def sessions_of(request: Request) -> UiSessions:
    sessions: UiSessions = request.app.state.ui_sessions
    return sessions


async def signed_in(request: Request) -> UiSession:
    """The request's session (else to the sign-in page)."""
    session = sessions_of(request).get(request)
    if session is None:
        raise SignInNeeded
    return session


async def posted(request: Request, session: Annotated[UiSession, Depends(signed_in)]) -> dict[str, str]:
    """A POSTed form of a signed-in session, refused without the session's CSRF token."""
    form = await request.form()
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    if not session.csrf_ok(fields.get("csrf")):
        raise CsrfError
    return fields


Session = Annotated[UiSession, Depends(signed_in)]
Form = Annotated[dict[str, str], Depends(posted)]
State = Annotated[ServerState, Depends(state_of)]


def create_ui(state: ServerState) -> FastAPI:
    """The inspector's app, answering under :data:`~flowmem.server.ui.render.PREFIX` when mounted there."""
    from flowmem.server.ui import fixes, pages, signin

    ui = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    ui.state.flowmem = state
    ui.state.ui_sessions = UiSessions()
    ui.include_router(signin.router)
    ui.include_router(pages.router)
    ui.include_router(fixes.router)
    ui.mount("/static", StaticFiles(directory=str(files("flowmem.server.ui") / "static")), name="static")
    _add_error_pages(ui, state)
    return ui


def _add_error_pages(ui: FastAPI, state: ServerState) -> None:
    async def sign_in(request: Request, exc: Exception) -> Response:
        return RedirectResponse(f"{PREFIX}/signin", status_code=303, headers=HEADERS)

    async def csrf(request: Request, exc: Exception) -> Response:
        message = "this form was sent without its security token (CSRF): reload the page and send it again"
        return _error(request, 403, message)

    async def flowmem_error(request: Request, exc: Exception) -> Response:
        status, body = describe(exc, state.secrets)
        return _error(request, status, body["error"]["message"])

    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        wrong = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in exc.errors())
        return _error(request, 422, f"the request is not valid: {wrong}")

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        return _error(request, exc.status_code, "no such page" if exc.status_code == 404 else str(exc.detail))

    async def internal(request: Request, exc: Exception) -> Response:
        # A bug: its type on the page (describe), the message in the server log, never a traceback on the page.
        logger.error("{} {}: internal error {}: {}", request.method, request.url.path, type(exc).__name__,
                     redact_text(str(exc), state.secrets))  # fmt: skip
        return await flowmem_error(request, exc)

    ui.add_exception_handler(SignInNeeded, sign_in)
    ui.add_exception_handler(Exception, internal)
    ui.add_exception_handler(CsrfError, csrf)
    ui.add_exception_handler(FlowmemError, flowmem_error)
    ui.add_exception_handler(RequestValidationError, invalid)
    ui.add_exception_handler(StarletteHTTPException, http_error)


def _error(request: Request, status: int, message: str) -> Response:
    session = sessions_of(request).get(request)
    return page("error.html", status, session=session, status=status, message=message, title=f"Error {status}")
