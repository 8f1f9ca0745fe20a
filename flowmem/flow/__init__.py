"""The flow layer: the op contract and the engine that runs ops.

The contract ops are written against: :mod:`~flowmem.flow.op` (``Op``, ``OpParams``, the registry),
:mod:`~flowmem.flow.context` (``OpContext``), :mod:`~flowmem.flow.inputs`, :mod:`~flowmem.flow.response` and
:mod:`~flowmem.flow.prompts`. The engine: flow expressions (:mod:`~flowmem.flow.expr`), compilation and validation
(:mod:`~flowmem.flow.compile`), execution (:mod:`~flowmem.flow.executor`), the run entry with its backends and
plugins (:mod:`~flowmem.flow.runtime`, :mod:`~flowmem.flow.pool`, :mod:`~flowmem.flow.plugins`).

The engine's names below are imported on first use, so an op importing the contract does not load the engine
(which imports the config, which imports the op registry).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "CompiledFlow": "flowmem.flow.compile",
    "check_flow": "flowmem.flow.compile",
    "compile_flow": "flowmem.flow.compile",
    "run_flow": "flowmem.flow.executor",
    **dict.fromkeys(
        ("Node", "OpRef", "Parallel", "Sequence", "format_flow", "op_refs", "parse_flow"), "flowmem.flow.expr"
    ),
}

__all__ = [
    "CompiledFlow",
    "Node",
    "OpRef",
    "Parallel",
    "Sequence",
    "check_flow",
    "compile_flow",
    "format_flow",
    "op_refs",
    "parse_flow",
    "run_flow",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'flowmem.flow' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


if TYPE_CHECKING:
    from flowmem.flow.compile import CompiledFlow, check_flow, compile_flow
    from flowmem.flow.executor import run_flow
    from flowmem.flow.expr import Node, OpRef, Parallel, Sequence, format_flow, op_refs, parse_flow
