"""Loading the modules that register ops and backends.

Built-ins (``flowmem.ops``, the LLM backends) are always loaded. More come from three places, all
explicit: the ``plugins`` argument of :class:`~flowmem.App` (CLI ``--plugin``), the comma-separated
``FLOWMEM_PLUGINS`` environment variable, and installed packages that declare an entry point in
the ``flowmem.plugins`` group. Importing a plugin module only registers what it defines.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Mapping
from importlib.metadata import entry_points

from flowmem.errors import PluginError

BUILTIN_MODULES = (
    "flowmem.llm",
    "flowmem.testing.fake_llm",
    "flowmem.embedding",
    "flowmem.vector_store",
    "flowmem.ops",
)
ENTRY_POINT_GROUP = "flowmem.plugins"


def load_builtins() -> None:
    """Import the modules that register flowmem's own ops and backends."""
    for module in BUILTIN_MODULES:
        importlib.import_module(module)


def load_plugins(
    modules: Iterable[str] = (), *, environ: Mapping[str, str] | None = None, use_entry_points: bool = True
) -> list[str]:
    """Import plugin modules; return their names.

    Raises:
        PluginError: A module cannot be imported (the message says which and why).
    """
    env = os.environ if environ is None else environ
    names = [m.strip() for m in modules if m.strip()]
    names += [m.strip() for m in env.get("FLOWMEM_PLUGINS", "").split(",") if m.strip()]
    loaded: list[str] = []
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise PluginError(f"cannot import plugin module '{name}': {exc}") from None
        loaded.append(name)
    if use_entry_points:
        for point in entry_points(group=ENTRY_POINT_GROUP):
            try:
                point.load()
            except ImportError as exc:
                raise PluginError(f"cannot load plugin '{point.name}' ({point.value}): {exc}") from None
            loaded.append(point.value)
    return loaded
