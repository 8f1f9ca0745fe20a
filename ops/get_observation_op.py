"""``get_observation_op``: memories from the messages worth remembering."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from flowmem.context import OpContext
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_json
from flowmem.op import Op, OpParams, register_op
from flowmem.prompts import load_prompt
from flowmem.schema.memory import Memory, Message
from flowmem.scoring.derive import memory_from_message


@register_op
class GetObservationOp(Op):
    """Turn the kept messages into memories with message time and, when they name one, event time.

    With an LLM: ``observation`` memories — facts about the user in the third person, with
    ``when_to_use`` and keywords — up to ``max_observations_per_message`` per message. Without
    one (or for a message the LLM's reply leaves out): each message becomes a ``conversation``
    memory of its own words. Either way the message time is when it was said and the event time is
    read from the message's words relative to then ("next Thursday"). Ids derive from the message,
    so a rerun makes the same memories.
    """

    class Params(OpParams):
        max_observations_per_message: int = Field(3, ge=1, le=10, description="at most this many facts per message")

    params: Params
    reads = ("info_messages", "user_id", "workspace_id")
    writes = ("new_memories",)
    uses = ("llm",)
    degradation = "keeps each message as a conversation memory"

    async def execute(self, ctx: OpContext) -> None:
        messages: list[Message] = ctx["info_messages"]
        if messages and self.llm.available:
            ctx["new_memories"] = await self._observations(ctx, messages)
            ctx.note("source", "llm observations")
        else:
            ctx["new_memories"] = self._conversations(ctx, messages)
            ctx.note("source", "messages as conversation memories (no LLM)")

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        ctx["new_memories"] = self._conversations(ctx, ctx["info_messages"])

    def _conversations(self, ctx: OpContext, messages: list[Message]) -> list[Memory]:
        return [memory_from_message(m, workspace_id=ctx["workspace_id"], target=ctx["user_id"]) for m in messages]

    async def _observations(self, ctx: OpContext, messages: list[Message]) -> list[Memory]:
        prompt = load_prompt("get_observation")
        listing = "\n".join(
            f"{i}. [{m.time_created:%Y-%m-%d %H:%M}] {' '.join(m.content.split())}" for i, m in enumerate(messages)
        )
        user = prompt.user.format(user=ctx["user_id"], messages=listing)
        reply = await ask(self.llm, ctx, prompt.system, user, json_mode=True)
        facts = _facts(parse_json(reply.text), len(messages), self.params.max_observations_per_message)
        memories: list[Memory] = []
        missing = 0
        for i, message in enumerate(messages):
            found = facts.get(i, [])
            if not found:
                missing += 1
                memories.append(memory_from_message(message, workspace_id=ctx["workspace_id"], target=ctx["user_id"]))
                continue
            for n, fact in enumerate(found):
                memories.append(
                    memory_from_message(
                        message, workspace_id=ctx["workspace_id"], target=ctx["user_id"], index=n,
                        content=fact["content"], memory_type="observation", when_to_use=fact["when_to_use"],
                        keywords=fact["keywords"] or None,
                    )
                )  # fmt: skip
        if missing:
            ctx.warn(
                f"LLM gave no usable facts for {missing} of {len(messages)} messages; kept as conversation memories"
            )
        return memories


def _facts(data: Any, count: int, limit: int) -> dict[int, list[dict[str, Any]]]:
    """Facts by message index from ``[{"message": 0, "content": …, "when_to_use": …, "keywords": […]}, …]``."""
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    facts: dict[int, list[dict[str, Any]]] = {}
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict):
            continue
        try:
            index = int(str(item.get("message", item.get("index", ""))).strip())
        except ValueError:
            continue
        content = " ".join(str(item.get("content") or "").split())
        if not 0 <= index < count or not content or len(facts.get(index, [])) >= limit:
            continue
        keywords = item.get("keywords")
        facts.setdefault(index, []).append(
            {
                "content": content,
                "when_to_use": " ".join(str(item.get("when_to_use") or "").split()),
                "keywords": [str(k) for k in keywords][:8] if isinstance(keywords, list) else [],
            }
        )
    return facts
