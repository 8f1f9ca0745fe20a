"""``flowmem store …``: look into a vector store, delete from it, move memories between stores.

Export and import use JSON Lines, one memory per line with its vector, so moving a workspace from
the embedded store to Elasticsearch is ``flowmem store export -w alice > alice.jsonl`` then
``flowmem store import alice.jsonl -w alice -c elasticsearch``. Import writes into the workspace
the command names (see :mod:`flowmem.importing`), never silently into one a line names.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from typing import IO, Any

from flowmem.app import App
from flowmem.cli.options import add_import_options, checked_workspace, import_target
from flowmem.config.schema import SECTIONS
from flowmem.errors import InputError, Problem, StoreDamagedError
from flowmem.importing import import_memories
from flowmem.limits import memory_check
from flowmem.samples import memories_path
from flowmem.schema.history import HistoryEvent
from flowmem.schema.jsonl import dump_line, open_jsonl, read_jsonl, skipped_summary
from flowmem.schema.memory import MEMORY_TYPES, Memory
from flowmem.vector_store.base import VectorStore
from flowmem.vector_store.filters import MemoryFilter


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    store = sub.add_parser("store", help="inspect and move memories in a vector store")
    commands = store.add_subparsers(dest="store_command", metavar="SUBCOMMAND", required=True)

    scoped = argparse.ArgumentParser(add_help=False, parents=[common])
    scoped.add_argument(
        "--store", default="default", metavar="NAME", help="which vector_store entry (default: default)"
    )
    scoped.add_argument("-w", "--workspace", default="default", help="the workspace (tenant scope) to work in")

    stats = commands.add_parser(
        "stats", parents=[scoped], help="what the store holds: every workspace, or with -w only that one"
    )
    stats.add_argument("--json", action="store_true", help="print as JSON")
    stats.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    stats.set_defaults(handler=cmd_stats, workspace=None)  # no -w: all workspaces (the operator's view)

    listing = commands.add_parser("list", parents=[scoped], help="list memories of a workspace, oldest first")
    listing.add_argument("--limit", type=int, default=20, help="at most this many, oldest first (0: all)")
    listing.add_argument("--target", action="append", help="only these targets (repeatable)")
    listing.add_argument("--type", action="append", choices=MEMORY_TYPES, dest="memory_type", help="only these types")
    listing.add_argument("--status", choices=("valid", "expired"), help="only this status")
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
        help="delete every memory derived from this message (repeatable)",
    )  # fmt: skip
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
    check.add_argument("--store", default="default", metavar="NAME", help="which vector_store entry (default: default)")
    check.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    check.set_defaults(handler=cmd_check)

    load = commands.add_parser("import", parents=[common], help="read memories from JSON lines into a store")
    load.add_argument("file", metavar="FILE", nargs="?", help="a JSONL file (- for stdin)")
    load.add_argument("--sample", action="store_true", help="import the bundled sample memories (Alice, Jan–Jun 2024)")
    load.add_argument("--store", default="default", metavar="NAME", help="which vector_store entry (default: default)")
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
    return App(config=args.config, overrides=args.overrides, plugins=args.plugin)


def is_override(token: str) -> bool:
    """Whether a positional token is a config override (``section.name…=value``) rather than an id."""
    key, sep, _ = token.partition("=")
    return bool(sep) and key.split(".", 1)[0] in SECTIONS and "." in key


def cmd_stats(args: argparse.Namespace) -> int:
    with _app(args) as app:
        store = app.vector_store(args.store)
        scoped = args.workspace is not None  # -w: nothing about any other workspace, not even its name
        stats = app.run_coroutine(store.workspace_stats(args.workspace) if scoped else store.stats())
    if args.json:
        print(json.dumps(stats, indent=2, default=str))
        return 0
    for key, value in stats.items():
        if key != "workspaces":
            print(f"{key}: {value}")
    if not scoped:
        workspaces = stats.get("workspaces") or {}
        print(f"workspaces: {len(workspaces)}")
        for workspace, count in workspaces.items():
            print(f"  {workspace}: {count} memories")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    with _app(args) as app:
        store = app.vector_store(args.store)
        checks = app.run_coroutine(store.check())
    print(f"vector_store '{args.store}' ({store.backend_name})")
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
    if args.limit < 0:  # never a silent slice: found[:-1] dropped the newest memory
        raise InputError(Problem("--limit", f"must be 0 (all) or a positive number of memories, got {args.limit}"))
    flt = MemoryFilter(target=args.target, memory_type=args.memory_type, status=args.status)

    async def collect(store: VectorStore) -> list[Memory]:
        found: list[Memory] = []
        async for batch in store.iterate(args.workspace, flt, batch_size=500):
            found += batch
            if args.limit and len(found) >= args.limit:
                return found[: args.limit]
        return found

    with _app(args) as app:
        memories = app.run_coroutine(collect(app.vector_store(args.store)))
    for memory in memories:
        if args.json:
            sys.stdout.write(dump_line(memory.to_record()))
        else:
            content = " ".join(memory.content.split())
            print(f"{memory.memory_id}  {memory.created_at:%Y-%m-%d %H:%M}  {memory.memory_type:<14} "
                  f"{memory.target or '-':<10} {memory.status:<7} {content[:80]}")  # fmt: skip
    if not args.json:
        print(f"({len(memories)} shown)", file=sys.stderr)
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    with _app(args) as app:
        memories = app.run_coroutine(app.vector_store(args.store).get(args.workspace, args.ids))
    for memory in memories:
        print(json.dumps(memory.to_record(), ensure_ascii=False, indent=2))
    missing = set(args.ids) - {m.memory_id for m in memories}
    if missing:
        raise InputError(Problem(f"workspace '{args.workspace}'", f"no memory with id {', '.join(sorted(missing))}"))
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    async def delete(store: VectorStore) -> tuple[int, int]:
        ids = list(args.ids)
        for message_id in args.source_message:
            async for batch in store.iterate(args.workspace, MemoryFilter(source=message_id), batch_size=500):
                ids += [m.memory_id for m in batch]
        ids = list(dict.fromkeys(ids))
        doomed = await store.get(args.workspace, ids)
        deleted = await store.delete(args.workspace, ids)
        why = "deleted from the command line" + (f" (derived from {', '.join(args.source_message)})"
                                                 if args.source_message else "")  # fmt: skip
        await store.record_history(args.workspace, [HistoryEvent.of("delete", old=m, reason=why) for m in doomed])
        return deleted, len(ids)

    app = _app(args)
    if not args.ids and not args.source_message:
        raise InputError(Problem("store delete", "give memory IDs or --source-message MESSAGE_ID"))
    with app:
        deleted, asked = app.run_coroutine(delete(app.vector_store(args.store)))
    print(f"deleted {deleted} of {asked} memories from workspace '{args.workspace}'")
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    if args.limit < 1:  # a store would read LIMIT -1 as "all" and 0 as "none": neither is what was asked
        raise InputError(Problem("--limit", f"must be a positive number of events (1 or more), got {args.limit}"))

    async def collect(store: VectorStore) -> list[HistoryEvent]:
        if not args.ids:
            return await store.history(args.workspace, None, args.limit)
        return [e for memory_id in args.ids for e in await store.history(args.workspace, memory_id, args.limit)]

    with _app(args) as app:
        events = app.run_coroutine(collect(app.vector_store(args.store)))
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
    async def export(store: VectorStore, stream: IO[str]) -> int:
        count = 0
        async for batch in store.iterate(args.workspace, batch_size=1_000, with_vectors=not args.no_vectors):
            for memory in batch:
                stream.write(dump_line(memory.to_record(with_vector=not args.no_vectors)))
            count += len(batch)
        return count

    with _app(args) as app, _output(args.output) as stream:
        count = app.run_coroutine(export(app.vector_store(args.store), stream))
    print(f"exported {count} memories of workspace '{args.workspace}'", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
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
        store, embedder = app.vector_store(args.store), app.embedding_model(args.embedding)
        counts = app.run_coroutine(
            import_memories(records, store, embedder, target, source=source, reason=f"imported from {source}")
        )
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
