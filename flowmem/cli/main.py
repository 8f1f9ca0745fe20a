"""The ``flowmem`` command.

User mistakes (bad config, flow, override or input) end with one message on stderr saying what
was wrong and what is valid, and exit code 2; an op failing at run time exits 1. Anything else is
a bug in flowmem: one line and exit code 1 (``-vv`` prints the traceback).
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable, Sequence

from flowmem.cli import chat_cmds, eval_cmd, ingest, memory_cmds, serve_cmd, store
from flowmem.core.errors import FlowmemError
from flowmem.core.redact import redact_text
from flowmem.core.version import __version__


def _commands(name: str) -> Callable[[argparse.Namespace], int]:
    """A handler of :mod:`flowmem.cli.commands`, imported when it runs: building the parser stays cheap."""

    def handler(args: argparse.Namespace) -> int:
        from flowmem.cli import commands

        code: int = getattr(commands, name)(args)
        return code

    return handler


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flowmem",
        description="Memory flows for LLM assistants and agents: run, inspect and validate flows.",
    )
    parser.add_argument("--version", action="version", version=f"flowmem {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log to stderr (-vv for debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-c",
        "--config",
        action="append",
        default=[],
        metavar="FILE|PRESET",
        help="a config file or shipped preset, applied over the defaults (repeatable)",
    )
    common.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE|FILE.py",
        help="import a module (mypkg.ops) or a .py file (./my_ops.py) that registers ops or backends (repeatable)",
    )

    run = sub.add_parser("run", parents=[common], help="run a flow", description="Run a flow and print its response.")
    run.add_argument("flow", help="the flow's name (see `flowmem flows`)")
    run.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. op.x.params.y=3")
    run.add_argument("-q", "--query", help="the query (input `query`)")
    run.add_argument("-u", "--user", dest="user_id", help="whose memories (input `user_id`)")
    run.add_argument("-w", "--workspace", dest="workspace_id", help="tenant scope (input `workspace_id`)")
    run.add_argument(
        "--input", action="append", default=[], metavar="key=value", help="any flow input; YAML value (repeatable)"
    )
    run.add_argument("--json", action="store_true", help="print the response as JSON")
    run.add_argument("--trace", action="store_true", help="show per-op timing (stderr, or in the JSON)")
    run.add_argument("--explain", action="store_true", help="show every score factor, its op, and the near misses")
    run.set_defaults(handler=_commands("run"))

    flows = sub.add_parser("flows", parents=[common], help="list the flows of the resolved config")
    flows.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    flows.add_argument("--json", action="store_true", help="print as JSON")
    flows.set_defaults(handler=_commands("flows"))

    ops = sub.add_parser("ops", parents=[common], help="list registered ops with their params")
    ops.add_argument("--json", action="store_true", help="print as JSON")
    ops.set_defaults(handler=_commands("ops"))

    keys = sub.add_parser("keys", parents=[common], help="list the context keys ops pass, with types, writers, readers")
    keys.add_argument("--json", action="store_true", help="print as JSON")
    keys.set_defaults(handler=_commands("keys"))

    config = sub.add_parser("config", help="inspect the configuration")
    config_sub = config.add_subparsers(dest="config_command", metavar="SUBCOMMAND", required=True)
    show = config_sub.add_parser("show", parents=[common], help="print the resolved config, secrets redacted")
    show.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    show.set_defaults(handler=_commands("config_show"))

    memory_cmds.add_parsers(sub, common)
    chat_cmds.add_parsers(sub, common)
    store.add_parser(sub, common)
    eval_cmd.add_parser(sub, common)
    ingest.add_parser(sub, common)
    serve_cmd.add_parsers(sub, common)

    validate = sub.add_parser("validate", parents=[common], help="check every flow of the resolved config")
    validate.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    validate.set_defaults(handler=_commands("validate"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    # Overrides (key=value) may come after options: `run F -q text op.x.params.y=1`.
    args, extra = parser.parse_known_args(argv)
    stray = [a for a in extra if a.startswith("-") or "=" not in a or not hasattr(args, "overrides")]
    if stray:
        parser.error(f"unrecognized arguments: {' '.join(stray)}")
    if extra:
        args.overrides = [*args.overrides, *extra]
    handler = None
    if args.verbose:
        from loguru import logger

        logger.remove()
        handler = logger.add(sys.stderr, level="DEBUG" if args.verbose > 1 else "INFO")
        logger.enable("flowmem")
    try:
        code: int = args.handler(args)
        return code
    except FlowmemError as exc:
        if args.verbose > 1 and exc.__cause__ is not None:
            traceback.print_exception(exc.__cause__, file=sys.stderr)  # e.g. where a plugin's own code failed
        print(f"flowmem: error: {redact_text(str(exc), getattr(args, 'secrets', ()))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("flowmem: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (`flowmem ops | head`); nothing left to say
        return 0
    except Exception as exc:
        # Not a user's mistake (those raise FlowmemError): a bug in flowmem. One line, and the way to see more.
        if args.verbose > 1:
            traceback.print_exc(file=sys.stderr)
        reason = " ".join(redact_text(str(exc), getattr(args, "secrets", ())).split())
        reason = reason if len(reason) <= 200 else reason[:200] + "…"
        print(
            f"flowmem: internal error: {type(exc).__name__}: {reason} (run with -vv for the traceback)", file=sys.stderr
        )
        return 1
    finally:
        if handler is not None:  # called in-process (tests, embedding apps): leave logging as it was
            from loguru import logger

            logger.remove(handler)
            logger.disable("flowmem")


if __name__ == "__main__":
    sys.exit(main())
