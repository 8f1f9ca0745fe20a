"""``read_message_op``: the recent chat messages not yet turned into memories."""

from __future__ import annotations

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.keys import MESSAGES, RECENT_MESSAGES, USER_ID
from flowmem.schema.memory import Message


@register_op
class ReadMessageOp(Op):
    """Keep the chat messages not yet memorized that involve the user, newest N, oldest first.

    A message involves the user when the user sent it: its ``name`` equals the user id, ignoring
    case and surrounding spaces (:meth:`~flowmem.schema.memory.Message.is_from`). Exact, because
    these messages are handed to whoever asks as that user: matching a substring of the content
    gave ``al`` Bob's "My salary is 250k", and even a whole-word mention of Alice in Bob's message
    is Bob's to share, not Alice's. So messages without a name, and the assistant's replies, are
    left out: name the user's messages to have them considered. An empty user id is refused
    before the flow runs (the ``user_id`` input). Written to ``recent_messages``, beside the
    recalled memories; ``personal_context`` returns them as its output ``context_messages``.
    """

    class Params(OpParams):
        contextual_msg_max_count: int = Field(10, ge=0, description="how many recent messages to keep")

    params: Params
    reads = (MESSAGES, USER_ID)
    writes = (RECENT_MESSAGES,)

    async def execute(self, ctx: OpContext) -> None:
        user = ctx[USER_ID]
        messages: list[Message] = ctx[MESSAGES]
        involved = [m for m in messages if not m.memorized and m.is_from(user)]
        newest = sorted(involved, key=lambda m: m.time_created)[-self.params.contextual_msg_max_count :]
        ctx[RECENT_MESSAGES] = newest if self.params.contextual_msg_max_count else []
