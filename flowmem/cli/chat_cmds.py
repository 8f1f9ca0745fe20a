"""``flowmem context`` and ``flowmem session show|clear``: chat turns with short-term memory at the command line.

Thin callers of :meth:`flowmem.memories.Memories.context`, ``session`` and ``clear_session``: parse, call, render.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from flowmem.cli.memory_cmds import _memories, timestamp_arg
from flowmem.cli.options import checked_workspace, open_app, scoped_parser
from flowmem.schema.kinds import CONTEXT_FLOW

if TYPE_CHECKING:
    from flowmem.memories.chat import ContextResult
    from flowmem.schema.session import ChatSession


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    scoped = scoped_parser(common, "the workspace (tenant scope; default: default)")
    scoped.add_argument("-u", "--user", dest="user_id", required=True, help="whose session")

    context = sub.add_parser(
        "context", parents=[scoped], help="one chat turn: store the message, get the context for the reply",
        description="MESSAGE joins the session's short-term memory (stored, so the next run continues it); when the "
        "window is full its oldest messages are flushed to long-term memory through the write flow and summarised. "
        "Prints the context for the reply (flow chat_context).",
    )  # fmt: skip
    context.add_argument("message", metavar="MESSAGE", help="the user's new chat message")
    context.add_argument("-s", "--session", dest="session_id", required=True, help="the chat session's id")
    context.add_argument("--token-limit", type=int, metavar="N", help="the prompt's token budget (default: the ops')")
    context.add_argument("--reply", metavar="TEXT", help="the assistant's answer to the previous message, stored first")
    context.add_argument("--at", dest="timestamp", metavar="TIME", help="when the message was sent (default: now)")
    context.add_argument("--flow", default=CONTEXT_FLOW, help=f"the turn's flow (default {CONTEXT_FLOW})")
    context.add_argument("--explain", action="store_true", help="say what was kept, summarised and cut, and why")
    context.add_argument("--json", action="store_true", help="print the context, window, summary and memories as JSON")
    context.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    context.set_defaults(handler=cmd_context)

    session = sub.add_parser("session", help="read or clear a chat session's short-term memory")
    session_sub = session.add_subparsers(dest="session_command", metavar="SUBCOMMAND", required=True)
    show = session_sub.add_parser("show", parents=[scoped], help="the session's window and summary")
    show.add_argument("session_id", metavar="SESSION", help="the chat session's id")
    show.add_argument("--json", action="store_true", help="print the session as JSON")
    show.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    show.set_defaults(handler=cmd_session_show)
    clear = session_sub.add_parser(
        "clear", parents=[scoped], help="delete the session (messages not yet flushed are not memorized)"
    )
    clear.add_argument("session_id", metavar="SESSION", help="the chat session's id")
    clear.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    clear.set_defaults(handler=cmd_session_clear)


def cmd_context(args: argparse.Namespace) -> int:
    checked_workspace(args.workspace)
    when = timestamp_arg(args.timestamp)
    with open_app(args) as app:
        result = _memories(app, args).sync.context(
            args.message, user_id=args.user_id, workspace_id=args.workspace, session_id=args.session_id,
            token_limit=args.token_limit, reply=args.reply, timestamp=when, flow=args.flow,
        )  # fmt: skip
    if args.json:
        print(json.dumps(result.to_dict(explain=args.explain), ensure_ascii=False, indent=2))
        return 0
    if args.explain:
        print(explain_turn(result))
    else:
        print(render_context(result))
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def cmd_session_show(args: argparse.Namespace) -> int:
    checked_workspace(args.workspace)
    with open_app(args) as app:
        session = _memories(app, args).sync.session(args.session_id, user_id=args.user_id, workspace_id=args.workspace)
    if args.json:
        print(json.dumps(session.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        print(render_session(session))
    return 0


def cmd_session_clear(args: argparse.Namespace) -> int:
    checked_workspace(args.workspace)
    with open_app(args) as app:
        existed = _memories(app, args).sync.clear_session(
            args.session_id, user_id=args.user_id, workspace_id=args.workspace
        )
    who = f"session '{args.session_id}' of '{args.user_id}' in workspace '{args.workspace}'"
    print(f"cleared {who}" if existed else f"no {who}: nothing to clear")
    return 0


def render_context(result: ContextResult) -> str:
    """The context for the reply: the assembled messages when the flow assembles them, else its parts."""
    if result.messages:
        return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in result.messages)
    lines = [f"chat history ({len(result.chat_history)} messages):"]
    lines += [f"  {m.role}: {' '.join(m.content.split())}" for m in result.chat_history]
    if result.summary:
        lines += ["summary of earlier messages:", *(f"  {line}" for line in result.summary.splitlines())]
    if result.memories:
        lines += ["memories:", *(f"  - {m.display_line()}" for m in result.memories)]
    return "\n".join(lines)


def explain_turn(result: ContextResult) -> str:
    """What happened to the session in this turn, then what the flow kept and cut (``flowmem search --explain``)."""
    from flowmem.cli.explain import explain

    spans = result.response.trace.spans if result.response.trace is not None else []
    notes = next((s.notes for s in spans if s.op == "short_term_memory_op"), {})
    lines = [f"short-term memory: {notes.get('window', '?')}"]
    if result.flushed_messages:
        counts = (
            "" if result.flushed is None else ", ".join(f"{k} {n}" for k, n in sorted(result.flushed.counts.items()))
        )
        lines.append(
            f"flushed: the {result.flushed_messages} oldest messages, to long-term memory through the write flow "
            f"({counts or 'no changes'})"
        )
        lines.append(f"summary ({notes.get('summary', '?')}):")
        lines += [f"  {line}" for line in result.summary.splitlines()]
    elif result.summary:
        lines.append("summary of what left the window in earlier turns:")
        lines += [f"  {line}" for line in result.summary.splitlines()]
    rest = explain(result.response)
    return "\n".join(lines) + ("\n\n" + rest if rest else "")


def render_session(session: ChatSession) -> str:
    lines = [
        f"session '{session.session_id}' of '{session.user_id}' (workspace '{session.workspace_id}'): "
        f"{len(session.messages)} messages in the window, {session.flushed} flushed to long-term memory, "
        f"version {session.version}, updated {session.updated_at.isoformat(sep=' ')}"
    ]
    lines += [f"  {m.time_created:%Y-%m-%d %H:%M}  {m.role}: {' '.join(m.content.split())}" for m in session.messages]
    if session.summary:
        lines += ["summary of earlier messages:", *(f"  {line}" for line in session.summary.splitlines())]
    return "\n".join(lines)
