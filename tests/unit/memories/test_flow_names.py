"""The shipped flows a call runs when it names none are named once (``flowmem.schema.kinds``): the memory service,
the CLI's ``--flow`` defaults and the HTTP search body all use those names, and the default config defines them."""

from __future__ import annotations

import argparse
import inspect

from flowmem.cli.main import build_parser
from flowmem.config.loader import load_config
from flowmem.memories.service import Memories
from flowmem.schema import kinds
from flowmem.server.models import SearchBody

NAMES = {name: getattr(kinds, name) for name in dir(kinds) if name.endswith("_FLOW")}


def _flow_defaults(parser: argparse.ArgumentParser, path: str = "") -> dict[str, str]:
    found: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(_flow_defaults(sub, f"{path} {name}".strip()))
        elif action.dest in ("flow", "search_flow") and isinstance(action.default, str):
            found[f"{path} {action.option_strings[0]}"] = action.default
    return found


def test_every_default_flow_is_a_named_constant_the_default_config_defines() -> None:
    assert set(NAMES) == {"SEARCH_FLOW", "WRITE_FLOW", "ADD_TEXT_FLOW", "CONTEXT_FLOW", "APPEND_FLOW"}
    assert set(NAMES.values()) <= set(load_config(None, []).config.flow)
    defaults = _flow_defaults(build_parser())
    assert defaults and set(defaults.values()) <= set(NAMES.values()), defaults
    assert defaults["search --flow"] == kinds.SEARCH_FLOW and defaults["ingest --flow"] == kinds.WRITE_FLOW
    assert defaults["context --flow"] == kinds.CONTEXT_FLOW
    assert SearchBody.model_fields["flow"].default == kinds.SEARCH_FLOW
    signatures = {name: inspect.signature(getattr(Memories, name)).parameters for name in ("search", "context")}
    assert signatures["search"]["flow"].default == kinds.SEARCH_FLOW
    assert signatures["context"]["flow"].default == kinds.CONTEXT_FLOW
