"""No import points up a layer (issue 25 point 3; docs/architecture.md draws the layers).

Every module of ``flowmem/`` and ``ops/`` belongs to one layer, found by its longest prefix in :data:`LAYERS`;
a module may import its own layer and those below it. Every import counts: at the top of a module, inside a
function (imported on first use) and under ``TYPE_CHECKING`` — a type-only import is still a dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import flowmem

REPO = Path(__file__).resolve().parents[2]

# Top to bottom. The op contract is the part of flowmem/flow/ that ops are written against; it sits below the
# ops (which import it), the engine above them (it runs them).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "transports",
        (
            "flowmem.__main__",
            "flowmem.app",
            "flowmem.cli",
            "flowmem.server",
            "flowmem.integrations",
            "flowmem.eval",
            "flowmem.testing",
        ),
    ),
    ("memory service", ("flowmem.memories",)),
    ("app + flows", ("flowmem.flow", "flowmem.config")),
    ("ops", ("flowmem.ops",)),
    (
        "op contract",
        (
            "flowmem.flow.op",
            "flowmem.flow.context",
            "flowmem.flow.inputs",
            "flowmem.flow.response",
            "flowmem.flow.prompts",
            "flowmem.keys",
        ),
    ),
    ("backends", ("flowmem.vector_store", "flowmem.embedding", "flowmem.llm")),
    ("ops' libraries", ("flowmem.scoring", "flowmem.timeexpr", "flowmem.assembly")),
    ("schema", ("flowmem.schema",)),
    ("core", ("flowmem.core",)),
]
# The package itself only re-exports the public names on first use (PEP 562); it belongs to no layer.
FACADE = "flowmem"


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of ``module`` (0 is the top), by its longest matching prefix."""
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[0] == "ops":
        parts[0:1] = ["flowmem", "ops"]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources(root: Path) -> Iterator[tuple[str, Path]]:
    for top in ("flowmem", "ops"):
        for path in sorted((root / top).rglob("*.py")):
            yield module_name(path, root), path


def imported(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) of every flowmem module ``path`` imports; ``from flowmem import App`` counts as its module."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            if base == FACADE:
                for alias in node.names:
                    yield node.lineno, flowmem._EXPORTS.get(alias.name, f"{FACADE}.{alias.name}")
            else:
                yield node.lineno, base


def upward_imports(root: Path) -> list[str]:
    """Every import of a module from a layer above its own, as ``file:line: a (layer) imports b (layer)``."""
    found = []
    for module, path in sources(root):
        if module == FACADE:
            continue
        own = layer_of(module)
        for line, target in imported(module, path):
            if not (target == FACADE or target.startswith(FACADE + ".")):
                continue
            theirs = layer_of(target)
            if own is not None and theirs is not None and theirs < own:
                where = f"{path.relative_to(root)}:{line}"
                found.append(f"{where}: {module} ({LAYERS[own][0]}) imports {target} ({LAYERS[theirs][0]})")
    return found


def test_no_import_points_up_a_layer() -> None:
    assert upward_imports(REPO) == []


def test_every_module_has_a_layer() -> None:
    # A new package must be placed in LAYERS (and in docs/architecture.md), or this fails.
    assert [m for m, _ in sources(REPO) if m != FACADE and layer_of(m) is None] == []


@pytest.mark.parametrize(
    ("where", "code"),
    [
        ("flowmem/vector_store/upward.py", "from flowmem.memories import Memories\n"),
        ("flowmem/llm/upward.py", "def f():\n    from flowmem.flow.context import OpContext\n"),
        ("flowmem/flow/op2.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import flowmem.app\n"),
        ("flowmem/scoring/upward.py", "from flowmem import App\n"),
        ("ops/upward_op.py", "from flowmem.flow.runtime import Runtime\n"),
        ("flowmem/core/upward.py", "from flowmem.schema.memory import Memory\n"),
    ],
)
def test_an_upward_import_is_found(tmp_path: Path, where: str, code: str) -> None:
    (tmp_path / "flowmem").mkdir()
    (tmp_path / "ops").mkdir()
    (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / where).write_text(code, encoding="utf-8")
    (tmp_path / "flowmem" / "core" / "fine.py").parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "flowmem" / "core" / "fine.py").write_text("from flowmem.core.errors import FlowmemError\n")
    (found,) = upward_imports(tmp_path)
    assert found.startswith(f"{where}:")
