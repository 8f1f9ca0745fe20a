"""``read_message_op``: the recent chat messages not yet turned into memories."""

from __future__ import annotations

from pydantic import Field

from flowmem.context import OpContext
from flowmem.op import Op, OpParams, register_op
from flowmem.schema.memory import Message


@register_op
class ReadMessageOp(Op):
    """Keep the chat messages not yet memorized that involve the user, newest N, oldest first.

    A message involves the user when its ``name`` is the user's id (case-insensitive) or its
    content mentions it. Written to ``context_messages``, beside the recalled memories.
    """

    class Params(OpParams):
        contextual_msg_max_count: int = Field(10, ge=0, description="how many recent messages to keep")

    params: Params
    reads = ("messages", "user_id")
    writes = ("context_messages",)

    async def execute(self, ctx: OpContext) -> None:
        user = str(ctx["user_id"]).lower()
        messages: list[Message] = ctx["messages"]
        involved = [m for m in messages if not m.memorized and (m.name.lower() == user or user in m.content.lower())]
        newest = sorted(involved, key=lambda m: m.time_created)[-self.params.contextual_msg_max_count :]
        ctx["context_messages"] = newest if self.params.contextual_msg_max_count else []
