"""``update_vector_store_op``: apply the write path's decisions, with history, and mark the messages memorized."""

from __future__ import annotations

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, register_op
from flowmem.keys import ANSWER, MEMORY_ACTIONS, MESSAGES, SLOT_BACKFILL, USER_ID, WORKSPACE_ID, WRITE_FENCES
from flowmem.schema.actions import MemoryAction
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory, Message


@register_op
class UpdateVectorStoreOp(Op):
    """Store the added, updated and expired memories, record each change in the history, and mark
    every message of the run memorized for the run's user — in one transaction on the local store.
    The ledger is per (workspace, user, message id): another user's message of the same id stays unmemorized.

    Memory ids and history event ids derive from their content and the message they came from, so a
    run cut short by a crash leaves nothing half-written there, and running the same messages again
    finishes the job without duplicates.

    Stored memories that only gained the slots read from their words (``slot_backfill``, from
    ``contra_repeat_op``) are written in the same transaction, with no history event: nothing a user
    said or did changed them.
    """

    reads = (MEMORY_ACTIONS, MESSAGES, WORKSPACE_ID, USER_ID)
    optional_reads = (SLOT_BACKFILL, WRITE_FENCES)
    writes = (ANSWER,)
    uses = ("vector_store",)
    writes_store = True

    async def execute(self, ctx: OpContext) -> None:
        actions: list[MemoryAction] = ctx[MEMORY_ACTIONS]
        messages: list[Message] = ctx[MESSAGES]
        backfill: list[Memory] = ctx.get(SLOT_BACKFILL) or []
        final: dict[str, Memory] = {m.memory_id: m for m in backfill}  # a decision below replaces its memory
        history: list[HistoryEvent] = []
        for action in actions:
            if action.action == "skip":
                continue
            final[action.memory.memory_id] = action.memory  # a memory changed twice: its last state
            history.append(
                HistoryEvent.of(
                    action.action, old=action.old, new=action.memory, flow_id=ctx.flow_id, reason=action.reason
                )
            )
        memorized = [m.message_id for m in messages]
        # A stored memory this run changes (updated, expired, slots written back) must still be there when the
        # write lands: one deleted or forgotten meanwhile is not brought back (flowmem.vector_store.erasure).
        # (A memory this run adds and then changes is not stored yet: it need not be there.)
        added = {a.memory.memory_id for a in actions if a.action == "add"}
        stored = {a.memory.memory_id for a in actions if a.old is not None and a.old.memory_id == a.memory.memory_id}
        stored |= {m.memory_id for m in backfill}
        must_exist = [i for i in final if i in stored - added]
        await self.vector_store.write(
            ctx[WORKSPACE_ID], list(final.values()), history=history, user_id=ctx[USER_ID], memorized=memorized,
            fence=self.write_fence(ctx), must_exist=must_exist,
        )  # fmt: skip
        counts = {kind: sum(a.action == kind for a in actions) for kind in ("add", "update", "expire", "skip")}
        ctx.note("applied", counts)
        if backfill:
            ctx.note("slots_written_back", len(backfill))
        ctx[ANSWER] = (
            f"added {counts['add']}, updated {counts['update']}, expired {counts['expire']}, skipped {counts['skip']}; "
            f"{len(memorized)} messages memorized"
        )
