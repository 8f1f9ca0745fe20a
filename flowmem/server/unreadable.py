"""Values a JSON request can carry that are neither text nor numbers: refused where they come in, by name.

A JSON ``\\uXXXX`` escape can spell a lone UTF-16 surrogate (``"\\ud800"``); Python's ``json`` decodes it into
a ``str`` that no UTF-8 encoder accepts, so the store write, the log line or the answer that meets it fails
(a 500 where a 400 or a 403 was due). Python's ``json`` also reads ``NaN``, ``Infinity`` and numbers beyond
a float (``1e400``) as non-finite floats, which are not JSON and which no answer can write back.

Both transports refuse them once, before anything is read or written, naming where they are: the HTTP API
for every JSON body (:class:`CheckedRoute`, the route class of every ``/v1`` route, 400), MCP for every tool's
arguments (a tool error: :func:`flowmem.server.mcp_tools.build_mcp` reads :data:`MCP_MARK`). Over stdio the
MCP SDK's own JSON parser cannot read a lone surrogate and drops the line unanswered (the client waits
forever), so :func:`check_stdin` marks such a request before the SDK reads it. Query strings and paths
cannot carry a surrogate: their percent-escapes are decoded as UTF-8 with replacement.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

from flowmem.core.errors import InputError, Problem

MAX_PROBLEMS = 10  # a body full of them is one mistake; ten named are enough to find it


def unreadable(value: Any, where: str) -> list[Problem]:
    """Each lone surrogate (in a string or a key) and non-finite number in ``value``, at its dotted path
    under ``where`` (``body.messages.0.content``); at most :data:`MAX_PROBLEMS`."""
    problems: list[Problem] = []
    pending: deque[tuple[Any, str]] = deque([(value, where)])
    while pending and len(problems) < MAX_PROBLEMS:
        item, at = pending.popleft()  # iterative: a body may nest as deep as the JSON parser allows
        if isinstance(item, str):
            reason = _surrogate(item)
            if reason:
                problems.append(Problem(at, reason))
        elif isinstance(item, float) and not math.isfinite(item):
            problems.append(Problem(at, f"is {item!r}, not a JSON number; send a finite number"))
        elif isinstance(item, dict):
            for key, inner in item.items():
                name = f"{at}.{_shown(str(key))}" if at else _shown(str(key))
                reason = _surrogate(str(key))
                if reason:
                    problems.append(Problem(name, f"(this key) {reason}"))
                pending.append((inner, name))
        elif isinstance(item, list | tuple):
            pending.extend((inner, f"{at}.{index}") for index, inner in enumerate(item))
    return problems


def _surrogate(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (
            f"contains a lone UTF-16 surrogate ({_shown(text[exc.start])}) at character {exc.start}, which is not "
            "text; send the character itself (UTF-8) or a whole surrogate pair"
        )
    return ""


def _shown(text: str) -> str:
    """``text`` with each lone surrogate written as its escape, so a message naming it can be sent."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} (character {exc.pos})"
    return str(exc) or type(exc).__name__  # RecursionError: "maximum recursion depth exceeded ..."


def _json_body(request: Request) -> bool:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


class CheckedRoute(APIRoute):
    """An API route whose JSON body is checked by :func:`unreadable` before it is validated (400 naming each
    place); a body that is not JSON at all is the usual 422 ``invalid_request``."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler

        async def checked(request: Request) -> Response:
            if _json_body(request) and await request.body():
                try:
                    data = await request.json()  # kept by the request: the route does not parse it again
                except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, digits over Python's limit, depth
                    reason = _reason(exc)
                    raise RequestValidationError([{"type": "json_invalid", "loc": ("body",), "msg": reason,
                                                   "input": {}, "ctx": {"error": reason}}]) from None  # fmt: skip
                problems = unreadable(data, "body")
                if problems:
                    raise InputError(problems)
            return await handler(request)

        return checked


MCP_MARK = "flowmem/unreadable"  # in a request's params._meta: what check_stdin found (rendered problems)
_LONE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # a surrogate escape, lone or paired: worth a closer look


def marked_request(line: str) -> str:
    """A JSON-RPC line with its lone surrogates replaced (``?``) and, when it has params, what was wrong put
    in ``params._meta`` under :data:`MCP_MARK`; any other line as it is."""
    if not _LONE_ESCAPE.search(line):
        return line
    try:
        data = json.loads(line)
        params = data.get("params") if isinstance(data, dict) else None
        if not isinstance(params, dict):
            return line
        arguments = params.get("arguments")
        problems = unreadable(arguments if isinstance(arguments, dict) else params, "")
        if not problems:
            return line
        data = _scrubbed(data)
        meta = data["params"].get("_meta")
        data["params"]["_meta"] = {**(meta if isinstance(meta, dict) else {}), MCP_MARK: [p.render() for p in problems]}
        return json.dumps(data) + "\n"
    except (ValueError, RecursionError):
        return line  # not JSON flowmem can read: the SDK answers it (or not) as it would


def _scrubbed(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_scrubbed(str(key)): _scrubbed(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_scrubbed(inner) for inner in value]
    return value


def check_stdin() -> None:
    """Put a pipe on file descriptor 0, fed by a thread that passes each line of the real stdin through
    :func:`marked_request`: the MCP SDK's stdio transport then reads marked requests only."""
    source = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)

    def pump() -> None:
        with open(source, "rb") as lines, open(write_end, "wb") as sink:
            try:
                for raw in lines:
                    sink.write(marked_request(raw.decode("utf-8", "replace")).encode("utf-8"))
                    sink.flush()
            except OSError:  # the server stopped reading
                pass

    threading.Thread(target=pump, name="flowmem-mcp-stdin", daemon=True).start()
