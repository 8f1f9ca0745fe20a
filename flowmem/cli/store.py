"""``flowmem store …``: look into a vector store, delete from it, move memories between stores.

Export and import use JSON Lines, one memory per line with its vector, so moving a workspace from
the embedded store to Elasticsearch is ``flowmem store export -w alice > alice.jsonl`` then
``flowmem store import alice.jsonl -w alice -c elasticsearch``. Import writes into the workspace
the command names (see :mod:`flowmem.memories.importing`), never silently into one a line names.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

from flowmem.cli.options import (
    add_import_options,
    add_store_option,
    checked_workspace,
    import_target,
    open_app,
    scoped_parser,
)
from flowmem.core.errors import InputError, NotFoundError, Problem
from flowmem.schema.kinds import MEMORY_STATUSES, MEMORY_TYPES

if TYPE_CHECKING:
    from flowmem.app import App
    from flowmem.memories import SyncMemories


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    store = sub.add_parser("store", help="inspect and move memories in a vector store")
    commands = store.add_subparsers(dest="store_command", metavar="SUBCOMMAND", required=True)

    scoped = scoped_parser(common, "the workspace (tenant scope) to work in")

    # Its own -w (default: none = every workspace): set_defaults on a parser sharing `scoped`'s -w would
    # change that option's default for every store command.
    stats = commands.add_parser(
        "stats", parents=[common], help="what the store holds: every workspace, or with -w only that one"
    )
    add_store_option(stats)
    stats.add_argument("-w", "--workspace", help="only this workspace (nothing about any other)")
    stats.add_argument("--json", action="store_true", help="print as JSON")
    stats.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    stats.set_defaults(handler=cmd_stats)

    listing = commands.add_parser("list", parents=[scoped], help="list memories of a workspace, oldest first")
    listing.add_argument("--limit", type=int, default=20, help="at most this many, oldest first (0: all)")
    listing.add_argument("--offset", type=int, default=0, help="skip this many first (paging)")
    listing.add_argument("-u", "--user", "--target", dest="target", help="only this user's memories (their target)")
    listing.add_argument("--type", action="append", choices=MEMORY_TYPES, dest="memory_type", help="only these types")
    listing.add_argument("--status", choices=MEMORY_STATUSES, help="only this status")
    listing.add_argument("--json", action="store_true", help="print JSON lines")
    listing.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    listing.set_defaults(handler=cmd_list)

    get = commands.add_parser("get", parents=[scoped], help="print memories by id (JSON)")
    get.add_argument("ids", nargs="+", metavar="ID", help="memory ids, then any key=value config overrides")
    get.set_defaults(handler=cmd_get, overrides=[])

    delete = commands.add_parser("delete", parents=[scoped], help="delete memories by id or by source message")
    delete.add_argument("ids", nargs="*", metavar="ID", help="memory ids, then any key=value config overrides")
    delete.add_argument(
        "--source-message", action="append", default=[], metavar="MESSAGE_ID",
        help="delete every memory derived from this message of -u USER (repeatable)",
    )  # fmt: skip
    delete.add_argument("-u", "--user", dest="user_id", help="whose message (with --source-message)")
    delete.set_defaults(handler=cmd_delete, overrides=[])

    history = commands.add_parser("history", parents=[scoped], help="what happened to a memory (or to all)")
    history.add_argument("ids", nargs="*", metavar="ID", help="memory ids (none: the workspace's latest changes)")
    history.add_argument("--limit", type=int, default=50, help="at most this many events per memory (1 or more)")
    history.add_argument("--json", action="store_true", help="print JSON lines")
    history.set_defaults(handler=cmd_history, overrides=[])

    export = commands.add_parser("export", parents=[scoped], help="write a workspace's memories as JSON lines")
    export.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    export.add_argument("--no-vectors", action="store_true", help="leave vectors out (import re-embeds)")
    export.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    export.set_defaults(handler=cmd_export)

    check = commands.add_parser(
        "check", parents=[common], help="check the store's files: schema and SQLite's integrity check"
    )
    add_store_option(check)
    check.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    check.set_defaults(handler=cmd_check)

    load = commands.add_parser("import", parents=[common], help="read memories from JSON lines into a store")
    load.add_argument("file", metavar="FILE", nargs="?", help="a JSONL file (- for stdin)")
    load.add_argument("--sample", action="store_true", help="import the bundled sample memories (Alice, Jan–Jun 2024)")
    add_store_option(load)
    add_import_options(load)
    load.add_argument(
        "--embedding", default="default", metavar="NAME", help="embedding_model for lines without vectors"
    )
    load.add_argument("--skip-bad", action="store_true", help="skip malformed lines instead of stopping")
    load.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    load.set_defaults(handler=cmd_import)


def _app(args: argparse.Namespace) -> App:
    checked_workspace(getattr(args, "workspace", None))  # every store command: `-w ""` is a mistake, not "no -w"
    if hasattr(args, "ids"):  # `get ID… key=value…`: ids and overrides share the positionals
        overrides = [token for token in args.ids if is_override(token)]
        args.ids = [token for token in args.ids if not is_override(token)]
        args.overrides = [*args.overrides, *overrides]
    return open_app(args)


def _memories(app: App, args: argparse.Namespace) -> SyncMemories:
    from flowmem.memories import Memories

    return Memories(app, args.store).sync


def is_override(token: str) -> bool:
    """Whether a positional token is a config override (``section.name…=value``) rather than an id."""
    from flowmem.config.schema import SECTIONS

    key, sep, _ = token.partition("=")
    return bool(sep) and key.split(".", 1)[0] in SECTIONS and "." in key


def cmd_stats(args: argparse.Namespace) -> int:
    with _app(args) as app:
        stats = _memories(app, args).stats(workspace_id=args.workspace)  # -w: nothing of any other workspace
    if args.json:
        print(json.dumps(stats, indent=2, default=str))
        return 0
    for key, value in stats.items():
        if key != "workspaces":
            print(f"{key}: {value}")
    if args.workspace is None:
        workspaces = stats.get("workspaces") or {}
        print(f"workspaces: {len(workspaces)}")
        for workspace, count in workspaces.items():
            print(f"  {workspace}: {count} memories")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from flowmem.core.errors import StoreDamagedError

    with _app(args) as app:
        memories = _memories(app, args)
        checks = memories.check()
        backend = memories.core.store.backend_name
    print(f"vector_store '{args.store}' ({backend})")
    for name, problem in checks:
        print(f"  {name}: {'ok' if problem is None else 'DAMAGED: ' + problem}")
    if not checks:
        print("  nothing to check for this backend beyond reaching it: reachable")
    failed = [name.split()[0] for name, problem in checks if problem is not None]
    if failed:
        raise StoreDamagedError(
            f"vector_store '{args.store}' is damaged (failed: {', '.join(failed)}); {StoreDamagedError.advice}"
        )
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from flowmem.schema.jsonl import dump_line

    if args.limit < 0:  # never a silent slice: found[:-1] dropped the newest memory
        raise InputError(Problem("--limit", f"must be 0 (all) or a positive number of memories, got {args.limit}"))
    if args.offset < 0:
        raise InputError(Problem("--offset", f"must be 0 or more, got {args.offset}"))
    with _app(args) as app:
        page = _memories(app, args).list(
            workspace_id=args.workspace, user_id=args.target, memory_type=args.memory_type, status=args.status,
            limit=args.limit or None, offset=args.offset,
        )  # fmt: skip
    for memory in page.memories:
        if args.json:
            sys.stdout.write(dump_line(memory.to_record()))
        else:
            content = " ".join(memory.content.split())
            print(f"{memory.memory_id}  {memory.created_at:%Y-%m-%d %H:%M}  {memory.memory_type:<14} "
                  f"{memory.target or '-':<10} {memory.status:<7} {content[:80]}")  # fmt: skip
    if not args.json:
        shown = f"{args.offset + 1}-{args.offset + len(page.memories)}" if page.memories else "none"
        more = f"; next: --offset {page.next_offset}" if page.next_offset is not None else ""
        print(f"({len(page.memories)} of {page.total} shown: {shown}{more})", file=sys.stderr)
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    with _app(args) as app:
        found = _memories(app, args).get_many(args.ids, workspace_id=args.workspace)
    for memory in found:
        print(json.dumps(memory.to_record(), ensure_ascii=False, indent=2))
    missing = [i for i in dict.fromkeys(args.ids) if i not in {m.memory_id for m in found}]
    if missing:
        raise NotFoundError(f"no memory with id {', '.join(missing)} in workspace '{args.workspace}'")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    app = _app(args)
    if not args.ids and not args.source_message:
        raise InputError(Problem("store delete", "give memory IDs, or --source-message MESSAGE_ID with -u USER"))
    if args.source_message and not args.user_id:
        raise InputError(
            Problem("--source-message", "messages are identified per user (two users may both send m1): add -u USER")
        )
    with app:
        deleted = _memories(app, args).delete(
            args.ids, workspace_id=args.workspace, source_message=args.source_message, user_id=args.user_id,
            reason="deleted from the command line",
        )  # fmt: skip
    asked = set(args.ids) | set(deleted)  # the ids given, and those found by source message
    print(f"deleted {len(deleted)} of {len(asked)} memories from workspace '{args.workspace}'")
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    from flowmem.schema.jsonl import dump_line

    if args.limit < 1:  # a store would read LIMIT -1 as "all" and 0 as "none": neither is what was asked
        raise InputError(Problem("--limit", f"must be a positive number of events (1 or more), got {args.limit}"))
    with _app(args) as app:
        memories = _memories(app, args)
        if args.ids:
            events = [e for i in args.ids for e in memories.history(i, workspace_id=args.workspace, limit=args.limit)]
        else:
            events = memories.history(workspace_id=args.workspace, limit=args.limit)
    for event in events:
        if args.json:
            sys.stdout.write(dump_line(event.model_dump(mode="json")))
            continue
        before = _short(event.old)
        after = _short(event.new)
        change = {"add": f"+ {after}", "delete": f"- {before}", "expire": f"expired: {before}"}.get(
            event.event, f"{before}\n      → {after}"
        )
        print(f"{event.time:%Y-%m-%d %H:%M:%S}  {event.event:<6}  {event.memory_id}  {event.reason}")
        print(f"      {change}")
    if not events:
        print(f"(no history in workspace '{args.workspace}' for {' '.join(args.ids) or 'any memory'})", file=sys.stderr)
    return 0


def _short(record: dict[str, Any] | None) -> str:
    if record is None:
        return "-"
    content = " ".join(str(record.get("content", "")).split())
    return f"[{record.get('status', '?')}] {content[:100]}"


def cmd_export(args: argparse.Namespace) -> int:
    from flowmem.schema.jsonl import dump_line

    vectors = not args.no_vectors

    async def export(memories: SyncMemories, stream: IO[str]) -> int:
        count = 0
        async for memory in memories.core.export(workspace_id=args.workspace, with_vectors=vectors):
            stream.write(dump_line(memory.to_record(with_vector=vectors)))
            count += 1
        return count

    with _app(args) as app, _output(args.output) as stream:
        count = app.run_coroutine(export(_memories(app, args), stream))
    print(f"exported {count} memories of workspace '{args.workspace}'", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from flowmem.config.limits import memory_check
    from flowmem.eval.samples import memories_path
    from flowmem.schema.jsonl import open_jsonl, read_jsonl, skipped_summary
    from flowmem.schema.memory import Memory

    if args.file is not None and is_override(args.file):  # `import --sample key=value`: no FILE was given
        args.overrides = [args.file, *args.overrides]
        args.file = None
    if (args.file is None) == (not args.sample):
        raise InputError(Problem("store import", "give a JSONL FILE (or - for stdin), or --sample, not both"))
    target = import_target(args)
    path = str(memories_path()) if args.sample else args.file
    skipped: list[Problem] = []
    with _app(args) as app, open_jsonl(path) as lines:
        source = "<stdin>" if path == "-" else path
        check = memory_check(app.config.limits)
        records = read_jsonl(lines, Memory, source=source, skip_bad=args.skip_bad, check=check, skipped=skipped)
        counts = _memories(app, args).import_(
            records, workspace_id=target.workspace, keep_workspaces=target.keep_workspaces,
            from_workspace=target.from_workspace, embedding=args.embedding, source=source,
            reason=f"imported from {source}",
        )  # fmt: skip
    parts = []
    for ws in sorted({*counts.added, *counts.updated}):
        replaced = f" ({counts.updated[ws]} replaced)" if counts.updated[ws] else ""
        parts.append(f"{counts.added[ws] + counts.updated[ws]} into '{ws}'{replaced}")
    print(f"imported {', '.join(parts) or 'nothing'}", file=sys.stderr)
    if skipped:
        print(skipped_summary(skipped), file=sys.stderr)
    return 0


@contextlib.contextmanager
def _output(path: str | None) -> Iterator[IO[str]]:
    if path is None:
        yield sys.stdout
        return
    with open(path, "w", encoding="utf-8") as handle:
        yield handle
