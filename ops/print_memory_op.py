"""``print_memory_op``: memories formatted for people."""

from __future__ import annotations

import json

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, register_op
from flowmem.keys import ANSWER, MEMORIES
from flowmem.schema.memory import Memory


@register_op
class PrintMemoryOp(Op):
    """Format the memories for people — index, time, content, when to use, metadata — as the answer."""

    reads = (MEMORIES,)
    writes = (ANSWER,)

    async def execute(self, ctx: OpContext) -> None:
        memories: list[Memory] = ctx[MEMORIES]
        blocks = [format_memory(i, m) for i, m in enumerate(memories, 1)]
        ctx[ANSWER] = "\n".join(blocks) if blocks else "(no memories)"


def format_memory(index: int, memory: Memory) -> str:
    lines = [f"{index}. {memory.display_line()}"]
    indent = " " * len(f"{index}. ")
    if memory.when_to_use:
        lines.append(f"{indent}when to use: {memory.when_to_use}")
    lines.append(f"{indent}type: {memory.memory_type}" + (f" · about: {memory.target}" if memory.target else ""))
    if memory.metadata:
        lines.append(f"{indent}metadata: {json.dumps(memory.metadata, ensure_ascii=False, default=str)}")
    return "\n".join(lines)
