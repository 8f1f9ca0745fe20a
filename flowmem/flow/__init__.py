"""Flow expressions, compilation (validation) and execution."""

from flowmem.flow.compile import CompiledFlow, check_flow, compile_flow
from flowmem.flow.executor import run_flow
from flowmem.flow.expr import Node, OpRef, Parallel, Sequence, format_flow, op_refs, parse_flow

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
