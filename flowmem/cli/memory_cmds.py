"""``flowmem add``, ``flowmem search`` and ``flowmem forget``: the memory service's verbs at the command line.

Each is a thin caller of :mod:`flowmem.memories`: parse, call, render. No memory logic here.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from flowmem.cli.options import open_app, scoped_parser
from flowmem.core.errors import InputError, Problem
from flowmem.schema.kinds import SEARCH_FLOW


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    scoped = scoped_parser(common, "the workspace (tenant scope; default: default)")

    add = sub.add_parser(
        "add", parents=[scoped], help="remember one fact, as given",
        description="Store TEXT as one memory about the user: typed, timed (event time read from its words), and "
        "de-duplicated against what is remembered (a newer single-valued fact expires the old one). "
        "To remember a chat, use `flowmem ingest`.",
    )  # fmt: skip
    add.add_argument("text", metavar="TEXT", help='what to remember, e.g. "I moved to Turin"')
    add.add_argument("-u", "--user", dest="user_id", required=True, help="whom it is about")
    add.add_argument("--at", dest="timestamp", metavar="TIME", help="when it was said (ISO 8601; default: now)")
    add.add_argument("--json", action="store_true", help="print the actions as JSON")
    add.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    add.set_defaults(handler=cmd_add)

    search = sub.add_parser(
        "search", parents=[scoped], help="recall the user's memories for a question",
        description="The user's memories for QUERY, best first, through a retrieval flow (personal_retrieve).",
    )  # fmt: skip
    search.add_argument("query", metavar="QUERY", help='the question, e.g. "where do I live?"')
    search.add_argument("-u", "--user", dest="user_id", required=True, help="whose memories")
    search.add_argument("-k", "--top-k", type=int, help="how many memories at most (default: the flow's)")
    search.add_argument("--at", dest="timestamp", metavar="TIME", help="when the question is asked (default: now)")
    search.add_argument("--flow", default=SEARCH_FLOW, help=f"the retrieval flow (default {SEARCH_FLOW})")
    search.add_argument("--explain", action="store_true", help="show every score factor, its op, and near misses")
    search.add_argument("--json", action="store_true", help="print memories with scores as JSON")
    search.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    search.set_defaults(handler=cmd_search)

    forget = sub.add_parser(
        "forget", parents=[scoped], help="erase a user's (or a workspace's) memories, ledger and history",
        description="Erase every memory of the user in the workspace (without -u: of the whole workspace), the "
        "record of their memorized messages, and the history of those memories. Nothing of theirs stays readable. "
        "Without --yes it only says what it would erase.",
    )  # fmt: skip
    forget.add_argument("-u", "--user", dest="user_id", help="whose memories (default: the whole workspace)")
    forget.add_argument("--yes", action="store_true", help="really erase (there is no undo)")
    forget.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    forget.set_defaults(handler=cmd_forget)


def _memories(app: Any, args: argparse.Namespace) -> Any:
    from flowmem.memories import Memories

    return Memories(app, args.store)


def timestamp_arg(text: str | None, option: str = "--at") -> datetime | None:
    """A time from the command line, or ``None``; a bad one is an :class:`InputError`.

    Read by the same rule as the ``timestamp`` flow input and JSONL times (:data:`flowmem.schema.timeparts.WallClock`:
    ISO 8601 or epoch seconds; a zone is dropped, the clock time kept).
    """
    if text is None:
        return None
    from pydantic import TypeAdapter, ValidationError

    from flowmem.schema.timeparts import WallClock

    try:
        when: datetime = TypeAdapter(WallClock).validate_python(text.strip())
        return when
    except ValidationError:
        raise InputError(
            Problem(option, f"{text!r} is not a date and time; use ISO 8601, e.g. 2024-06-12 or 2024-06-12T20:00")
        ) from None


def cmd_add(args: argparse.Namespace) -> int:
    when = timestamp_arg(args.timestamp)
    with open_app(args) as app:
        result = _memories(app, args).sync.add(
            text=args.text, user_id=args.user_id, workspace_id=args.workspace, timestamp=when
        )
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return 0
    for action in result.actions:
        print(f"{action.action:<6} {action.memory.memory_id}  {action.memory.content}")
        if action.reason:
            print(f"       {action.reason}")
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from flowmem.cli import render
    from flowmem.cli.explain import explain

    when = timestamp_arg(args.timestamp)
    if args.top_k is not None and args.top_k < 1:
        raise InputError(Problem("--top-k", f"must be at least 1, got {args.top_k}"))
    with open_app(args) as app:
        result = _memories(app, args).sync.search(
            args.query, user_id=args.user_id, workspace_id=args.workspace, flow=args.flow, top_k=args.top_k,
            timestamp=when,
        )  # fmt: skip
    if args.json:
        print(json.dumps(result.to_dict(explain=args.explain), ensure_ascii=False, indent=2))
    elif args.explain:
        print(explain(result.response))
    elif not result.memories:
        print(f"(no memories of '{args.user_id}' in workspace '{args.workspace}' for this question)")
    else:
        print(render.response(result.response))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    who = f"user '{args.user_id}' in workspace '{args.workspace}'" if args.user_id else f"workspace '{args.workspace}'"
    with open_app(args) as app:
        memories = _memories(app, args).sync
        if not args.yes:
            preview = memories.forget(workspace_id=args.workspace, user_id=args.user_id, dry_run=True)
            raise InputError(
                Problem(
                    "forget",
                    f"would erase {preview.memories} memories, {preview.messages} memorized-message records, "
                    f"{preview.history} history events and {preview.sessions} chat sessions of {who}; there is no "
                    "undo: add --yes to erase them",
                )
            )
        done = memories.forget(workspace_id=args.workspace, user_id=args.user_id)
    print(f"erased {done.memories} memories, {done.messages} memorized-message records, {done.history} "
          f"history events and {done.sessions} chat sessions of {who}")  # fmt: skip
    return 0
