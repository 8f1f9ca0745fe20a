"""Who is signed in to the web inspector: server-side sessions behind an HTTP-only, SameSite=Strict cookie.

The cookie holds a random session id, never the API key: the key is checked once at sign-in
(:meth:`~flowmem.server.auth.Keyring.grant`, the rule of ``/v1``) and the session keeps the key's
:class:`~flowmem.server.auth.Grant` — its workspaces and whether it is read-only. Each session has its own
CSRF token, which every form carries and every POST must send back (compared in constant time); the
sign-in form, before any session, uses a double-submit token (a cookie and the same value in the form).

Sessions live in the server process (a restart signs everyone out; behind several processes, pin a
browser to one). They end after :data:`IDLE` without a request, at :data:`LIFETIME`, or on sign-out.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from flowmem.server.auth import Grant

COOKIE = "flowmem_ui"
SIGNIN_COOKIE = "flowmem_ui_signin"
IDLE = 2 * 3600.0
LIFETIME = 12 * 3600.0
MAX_SESSIONS = 10_000  # the oldest are signed out first beyond this


@dataclass
class UiSession:
    """One signed-in browser: the grant of its key and its forms' CSRF token."""

    grant: Grant
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    started: float = field(default_factory=time.monotonic)
    seen: float = field(default_factory=time.monotonic)

    @property
    def can_write(self) -> bool:
        return not self.grant.read_only

    def csrf_ok(self, sent: object) -> bool:
        return isinstance(sent, str) and hmac.compare_digest(sent.encode(), self.csrf.encode())


class UiSessions:
    """The signed-in sessions of one server process."""

    def __init__(self) -> None:
        self._sessions: OrderedDict[str, UiSession] = OrderedDict()

    def start(self, grant: Grant, response: Response, request: Request) -> UiSession:
        """A new session for ``grant``, its cookie set on ``response``."""
        old = request.cookies.get(COOKIE)
        if old is not None:
            self._sessions.pop(old, None)  # its cookie is overwritten below
        session_id = secrets.token_urlsafe(32)
        session = self._sessions[session_id] = UiSession(grant)
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)
        set_cookie(response, request, COOKIE, session_id, int(LIFETIME))
        response.delete_cookie(SIGNIN_COOKIE, path="/ui")
        return session

    def get(self, request: Request) -> UiSession | None:
        """The request's session, if its cookie names a live one."""
        session_id = request.cookies.get(COOKIE)
        session = None if session_id is None else self._sessions.get(session_id)
        if session is None or session_id is None:
            return None
        clock = time.monotonic()
        if clock - session.seen > IDLE or clock - session.started > LIFETIME:
            del self._sessions[session_id]
            return None
        session.seen = clock
        self._sessions.move_to_end(session_id)
        return session

    def end(self, request: Request, response: Response) -> None:
        """Sign the request's session out (if any) and clear its cookie."""
        session_id = request.cookies.get(COOKIE)
        if session_id is not None:
            self._sessions.pop(session_id, None)
        response.delete_cookie(COOKIE, path="/ui")


def signin_token(request: Request) -> str:
    """The sign-in form's token: the one in the request's sign-in cookie, or a new one (set it with
    :func:`set_cookie`)."""
    return request.cookies.get(SIGNIN_COOKIE) or secrets.token_urlsafe(32)


def signin_token_ok(request: Request, sent: object) -> bool:
    cookie = request.cookies.get(SIGNIN_COOKIE)
    return bool(cookie) and isinstance(sent, str) and hmac.compare_digest(sent.encode(), str(cookie).encode())


def set_cookie(response: Response, request: Request, name: str, value: str, max_age: int) -> None:
    """An HTTP-only, SameSite=Strict cookie for ``/ui`` (Secure when the request came over HTTPS)."""
    response.set_cookie(name, value, max_age=max_age, path="/ui", httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")  # fmt: skip
