"""Options several commands share, checked once: the app of ``-c``/``--plugin``/overrides, the workspace (``-w``)
and how imports place memories."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from flowmem.core.errors import InputError, Problem
from flowmem.schema.kinds import DEFAULT_WORKSPACE

if TYPE_CHECKING:
    from flowmem.app import App
    from flowmem.memories.importing import ImportTarget


def open_app(args: argparse.Namespace) -> App:
    """The App of a command's ``-c``, ``--plugin`` and ``key=value`` overrides (every command opens it here).

    Its secret values are kept on ``args.secrets``: the error :func:`flowmem.cli.main.main` prints leaves
    them out (a server's error may quote the API key it was sent).
    """
    from flowmem.app import App

    app = App(config=args.config, overrides=getattr(args, "overrides", []), plugins=args.plugin)
    args.secrets = app.resolved.secret_values
    return app


def add_store_option(parser: argparse.ArgumentParser) -> None:
    """``--store NAME``: which ``vector_store`` entry a command uses."""
    parser.add_argument(
        "--store", default="default", metavar="NAME", help="which vector_store entry (default: default)"
    )


def scoped_parser(common: argparse.ArgumentParser, workspace_help: str) -> argparse.ArgumentParser:
    """The parent parser of commands that work in one workspace of one store: ``--store`` and ``-w``."""
    scoped = argparse.ArgumentParser(add_help=False, parents=[common])
    scoped.add_argument("-w", "--workspace", default="default", help=workspace_help)
    add_store_option(scoped)
    return scoped


def checked_workspace(value: str | None, option: str = "-w/--workspace") -> str | None:
    """``value`` unchanged, unless it is not a workspace id (a user error, exit 2): the store's rule and words
    (:func:`~flowmem.vector_store.rules.scope_problem`), named by the option.

    ``None`` (the option was not given) passes; each command decides what that means.
    """
    from flowmem.vector_store.rules import scope_problem

    # Blank only here: the rest of the id rule is the store's to apply (a forget reaches any id it holds).
    problem = None if value is None else scope_problem("workspace", value, where=option, id_rule=False)
    if problem is not None:
        raise InputError(problem)
    return value


def add_import_options(parser: argparse.ArgumentParser) -> None:
    """``-w``, ``--keep-workspaces`` and ``--from-workspace`` of the commands that import memories."""
    parser.add_argument(
        "-w", "--workspace", default=None,
        help=f"import into this workspace (default: {DEFAULT_WORKSPACE}); a line naming another is an error",
    )  # fmt: skip
    place = parser.add_mutually_exclusive_group()
    place.add_argument(
        "--keep-workspaces", action="store_true",
        help="write each memory into the workspace its line names (instead of -w)",
    )  # fmt: skip
    place.add_argument(
        "--from-workspace", metavar="NAME",
        help="the file's memories of workspace NAME go into -w (to copy a workspace under another name)",
    )  # fmt: skip


def import_target(args: argparse.Namespace) -> ImportTarget:
    """Where an import's memories go, from the options :func:`add_import_options` added."""
    from flowmem.memories.importing import ImportTarget

    workspace = checked_workspace(args.workspace)
    source = checked_workspace(args.from_workspace, "--from-workspace")
    if args.keep_workspaces and workspace is not None:
        raise InputError(
            Problem("--keep-workspaces", f"writes each memory into the workspace its line names; drop -w {workspace}")
        )
    return ImportTarget(workspace or DEFAULT_WORKSPACE, keep_workspaces=args.keep_workspaces, from_workspace=source)
