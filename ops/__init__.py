"""flowmem's built-in ops, one module per op. Importing this package registers them all.

Every module of this directory is imported: there is no list to keep, so a new ``<name>_op.py`` here is
registered by being here (and ``tests/unit/ops/test_builtin_ops.py`` fails if it registers no op of its name).
"""

import importlib
import pkgutil

for _module in sorted(pkgutil.iter_modules(__path__), key=lambda found: found.name):
    importlib.import_module(f"{__name__}.{_module.name}")
