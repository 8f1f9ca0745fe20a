"""``flowmem ingest FILE.jsonl -u ID``: chat messages (or ready-made memories) into memories, resumably.

Messages go through the write flow (``personal_summary``) in batches, oldest first. Messages the
store already marks memorized *for this user* are skipped (the ledger is per workspace, user and
message id, so two users' files may both use ``m1``), so an interrupted ingest is finished by
running the same command again. A bad line stops with its line number (``--skip-bad`` skips it instead).

The messages are the user's (``-u``) when their role is ``user`` and their ``name`` is the user id (or empty);
the others (the assistant's replies, other people's) are not memories of this user, and neither are the
user's messages filtered as noise. Every message left out is counted after the summary, per reason, with a few
message ids. A file with no message of the user is an error (exit 2) naming the names it holds: usually a
wrong ``-u``.

Every degradation of an op (an LLM call that failed, a reply it could not use) is counted over all
batches and said after the counts, one line per op and kind with the first reason and what was used
instead. ``--strict`` makes the first degradation an error (exit 1): the batch it happened in is not
written (the run stops right after the op that degraded, before the store write), batches before it
were written and the message says so; running again without ``--strict`` finishes the rest.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from flowmem.cli.options import add_import_options, import_target, open_app
from flowmem.core.errors import InputError, Problem
from flowmem.schema.kinds import WRITE_FLOW

if TYPE_CHECKING:
    from flowmem.memories import AddResult
    from flowmem.memories.importing import ImportCounts


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    ingest = sub.add_parser(
        "ingest", parents=[common], help="turn chat messages (JSONL) into memories",
        description="Messages: one JSON object per line with role, name, content, time_created and optionally "
        "message_id. With --memories: one memory per line (as `flowmem store export` writes). Times are ISO text "
        "or Unix epoch seconds (UTC); a time zone is dropped, keeping the clock time, so naive, offset and epoch "
        "times mix. UTF-8, with or without a byte order mark.",
    )  # fmt: skip
    ingest.add_argument("file", metavar="FILE", help="a JSONL file (- for stdin)")
    ingest.add_argument(
        "-u", "--user", dest="user_id",
        help="whose messages (required for messages): those with role 'user' and this `name` (or no name)",
    )  # fmt: skip
    add_import_options(ingest)  # -w, and for --memories where lines of other workspaces go
    ingest.add_argument("--flow", default=WRITE_FLOW, help=f"the write flow (default {WRITE_FLOW})")
    ingest.add_argument("--batch", type=int, default=50, help="messages per flow run (default 50)")
    ingest.add_argument("--memories", action="store_true", help="the lines are memories, not messages")
    ingest.add_argument("--skip-bad", action="store_true", help="skip malformed lines instead of stopping")
    ingest.add_argument(
        "--strict", action="store_true",
        help="stop with exit 1 when an op degrades (e.g. an LLM call fails) instead of using its offline fallback; "
        "the batch it happened in is not written, earlier batches are",
    )  # fmt: skip
    ingest.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    ingest.set_defaults(handler=cmd_ingest)


def cmd_ingest(args: argparse.Namespace) -> int:
    from flowmem.config.limits import memory_check, message_check
    from flowmem.schema.actions import ALREADY_MEMORIZED
    from flowmem.schema.jsonl import open_jsonl, read_jsonl, skipped_summary
    from flowmem.schema.memory import Memory, Message

    if args.batch < 1:
        raise InputError(Problem("--batch", f"must be at least 1, got {args.batch}"))
    if not args.memories and not args.user_id:
        raise InputError(Problem("ingest", "messages need the user they belong to: give -u/--user ID"))
    target = import_target(args)  # checks -w (an empty one is an error) for messages too
    source = "<stdin>" if args.file == "-" else args.file
    skipped: list[Problem] = []
    degraded: list[str] = []
    left_out: list[str] = []
    with open_app(args) as app, open_jsonl(args.file) as lines:
        memories = app.memories.sync
        if args.memories:
            check = memory_check(app.config.limits)
            records = list(
                read_jsonl(lines, Memory, source=source, skip_bad=args.skip_bad, check=check, skipped=skipped)
            )

            def imported(done: int, counts: ImportCounts) -> None:
                _progress(done, len(records), Counter(add=counts.added.total(), update=counts.updated.total()))

            done = memories.import_(
                records, workspace_id=target.workspace, keep_workspaces=target.keep_workspaces,
                from_workspace=target.from_workspace, source=source, reason="ingested from a file", progress=imported,
            )  # fmt: skip
            counts = Counter(add=done.added.total(), update=done.updated.total())
        else:
            fits = message_check(app.config.limits)
            read = read_jsonl(lines, Message, source=source, skip_bad=args.skip_bad, check=fits, skipped=skipped)

            def added(done: int, total: int, result: AddResult) -> None:
                _progress(done, total, result.counts)

            result = memories.add(
                [m for _, m in read], user_id=args.user_id, workspace_id=target.workspace, flow=args.flow,
                batch=args.batch, progress=added, strict=args.strict,
            )  # fmt: skip
            counts = Counter(result.counts)
            if result.messages:
                counts["messages"] = result.messages
            counts["messages already memorized"] = result.already_memorized
            degraded = result.degradation_summary()
            left = result.skipped.total() - result.already_memorized  # already memorized: said in the counts
            if left:
                left_out = [
                    f"skipped {left} of the {result.messages} messages, by reason:",
                    *result.skipped_summary(leave_out={ALREADY_MEMORIZED}),
                ]
    summary = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items())) or "nothing to do"
    print(f"\r\033[K{summary}" if sys.stderr.isatty() else summary, file=sys.stderr)
    for line in left_out:  # every message left out, counted per reason
        print(line, file=sys.stderr)
    for line in degraded:  # every degradation, counted over the batches, with its first reason
        print(f"warning: degraded: {line}", file=sys.stderr)
    if skipped:
        print(skipped_summary(skipped), file=sys.stderr)
    return 0


def _progress(done: int, total: int, counts: Counter[str]) -> None:
    width = 30
    filled = int(width * done / total) if total else width
    shown = " ".join(f"{kind} {counts[kind]}" for kind in ("add", "update", "expire", "skip") if counts[kind])
    line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}  {shown}"
    if sys.stderr.isatty():
        sys.stderr.write(f"\r\033[K{line}")
    else:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()
