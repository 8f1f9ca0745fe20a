"""``append_memory_op``: add every new memory as it is — the write path without de-duplication or superseding."""

from __future__ import annotations

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, register_op
from flowmem.keys import MEMORY_ACTIONS, NEW_MEMORIES, WORKSPACE_ID
from flowmem.schema.actions import MemoryAction
from flowmem.schema.memory import Memory


@register_op
class AppendMemoryOp(Op):
    """Add every new memory, comparing it with nothing: no duplicate is merged, no superseded fact expired.

    The baseline ``contra_repeat_op`` is measured against (``flowmem eval updates`` runs
    ``info_filter_op >> get_observation_op >> append_memory_op >> update_vector_store_op`` beside
    the write flow): what a memory layer that only appends would store. Only a memory whose id is
    already stored (the same message sent again) is skipped, so a rerun stays a rerun, as in
    ``contra_repeat_op``.
    """

    reads = (NEW_MEMORIES, WORKSPACE_ID)
    writes = (MEMORY_ACTIONS,)
    uses = ("embedding_model", "vector_store")

    async def execute(self, ctx: OpContext) -> None:
        new: list[Memory] = ctx[NEW_MEMORIES]
        actions: list[MemoryAction] = []
        if new:
            stored = {m.memory_id for m in await self.vector_store.get(ctx[WORKSPACE_ID], [m.memory_id for m in new])}
            vectors = await self.embedding_model.embed([m.content for m in new], kind="document")
            seen: set[str] = set()
            for memory, vector in zip(new, vectors, strict=True):
                if memory.memory_id in stored or memory.memory_id in seen:
                    actions.append(MemoryAction(action="skip", memory=memory, reason="already stored (a rerun)"))
                    continue
                seen.add(memory.memory_id)
                actions.append(MemoryAction(action="add", memory=memory.model_copy(update={"vector": vector})))
        ctx.note(
            "decisions",
            {"add": sum(a.action == "add" for a in actions), "skip": sum(a.action == "skip" for a in actions)},
        )
        ctx[MEMORY_ACTIONS] = actions
