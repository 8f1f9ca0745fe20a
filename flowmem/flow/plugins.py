"""Loading the modules that register ops and backends.

Built-ins (``flowmem.ops``, the LLM backends) are always loaded. More come from three places, all
explicit: the ``plugins`` argument of :class:`~flowmem.App` (CLI ``--plugin``), the comma-separated
``FLOWMEM_PLUGINS`` environment variable, and installed packages that declare an entry point in
the ``flowmem.plugins`` group. Importing a plugin module only registers what it defines.

A plugin is a module name (``mypkg.ops``, imported from ``sys.path``) or a path to a ``.py`` file
(``./my_ops.py``), which is imported as the module named by its stem (``my_ops``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Iterable, Mapping
from importlib.metadata import entry_points
from pathlib import Path

from flowmem.core.errors import FlowmemError, PluginError

BUILTIN_MODULES = (
    "flowmem.llm",
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
        if name.endswith(".py") or "/" in name or os.sep in name:
            _import_file(name)
        else:
            _import_module(name)
        loaded.append(name)
    if use_entry_points:
        for point in entry_points(group=ENTRY_POINT_GROUP):
            try:
                point.load()
            except ImportError as exc:
                raise PluginError(f"cannot load plugin '{point.name}' ({point.value}): {exc}") from None
            loaded.append(point.value)
    return loaded


def _import_module(name: str) -> None:
    if name.startswith(".") or not all(part.isidentifier() for part in name.split(".")):
        raise PluginError(
            f"plugin '{name}' is neither a module name (e.g. mypkg.ops) nor a path to a .py file (e.g. ./my_ops.py)"
        )
    try:
        importlib.import_module(name)
    except ImportError as exc:
        raise PluginError(f"cannot import plugin module '{name}': {exc}") from None
    except FlowmemError:
        raise  # e.g. a name registered twice: already says what is wrong
    except Exception as exc:  # the plugin's own code failed: the user's to fix; -vv shows the traceback
        raise PluginError(f"plugin module '{name}' failed while importing: {type(exc).__name__}: {exc}") from exc


def _import_file(text: str) -> None:
    path = Path(text).expanduser()
    if path.suffix != ".py" or not path.is_file():
        reason = "does not exist" if not path.exists() else "is not a .py file"
        raise PluginError(f"plugin file '{text}' {reason}; give a .py file or a module name (e.g. mypkg.ops)")
    name = path.stem
    if not name.isidentifier():
        raise PluginError(f"plugin file '{text}': '{name}' is not a valid module name; rename the file")
    resolved = path.resolve()
    existing = sys.modules.get(name)
    if existing is not None:
        if Path(getattr(existing, "__file__", None) or "").resolve() == resolved:
            return  # imported before (another App in this process): importing again would register twice
        raise PluginError(f"plugin file '{text}': a module named '{name}' is already imported; rename the file")
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise PluginError(f"plugin file '{text}' cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it, as `import` does (dataclasses and pickling look it up)
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        del sys.modules[name]
        if isinstance(exc, FlowmemError) or not isinstance(exc, Exception):
            raise
        raise PluginError(f"plugin file '{text}' failed while importing: {type(exc).__name__}: {exc}") from exc
