"""Built-in ops are found, not listed: every module of ``ops/`` is imported by ``flowmem.ops`` and registers the op
of its own name (issue 25 point 3)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import flowmem.ops
import pytest

from flowmem.flow.op import OPS

OPS_DIR = Path(flowmem.ops.__file__).parent


def _modules(directory: Path) -> list[str]:
    return sorted(path.stem for path in directory.glob("*.py") if path.name != "__init__.py")


def test_every_module_of_ops_registers_the_op_of_its_name() -> None:
    modules = _modules(OPS_DIR)
    assert len(modules) >= 24
    for name in modules:
        assert f"flowmem.ops.{name}" in sys.modules, f"ops/{name}.py was not imported by flowmem.ops"
        assert name in OPS, f"ops/{name}.py registers no op named {name!r}"
        assert OPS.get(name).__module__ == f"flowmem.ops.{name}"


def test_a_new_module_is_registered_without_being_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The package's own __init__, beside one op module it has never heard of.
    package = tmp_path / "more_ops"
    package.mkdir()
    shutil.copy(OPS_DIR / "__init__.py", package / "__init__.py")
    (package / "shiny_new_op.py").write_text(
        "from flowmem.flow.op import Op, register_op\n\n\n"
        "@register_op\n"
        "class ShinyNewOp(Op):\n"
        "    async def execute(self, ctx):\n"
        "        pass\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        __import__("more_ops")
        assert "shiny_new_op" in OPS
        assert OPS.get("shiny_new_op").__module__ == "more_ops.shiny_new_op"
    finally:
        if "shiny_new_op" in OPS:
            OPS.remove("shiny_new_op")
        for name in ("more_ops", "more_ops.shiny_new_op"):
            sys.modules.pop(name, None)
