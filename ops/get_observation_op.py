"""``get_observation_op``: memories from the messages worth remembering."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import INFO_MESSAGES, NEW_MEMORIES, USER_ID, WORKSPACE_ID
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_json
from flowmem.schema.memory import Memory, Message
from flowmem.scoring.derive import memory_from_message, with_anchored_times
from flowmem.scoring.echo import restated_words, said_back
from flowmem.scoring.facts import several_times, split_facts
from flowmem.scoring.keys import LLM_KEY
from flowmem.scoring.referents import with_referents
from flowmem.scoring.restated import RESTATES
from flowmem.scoring.slots import DEFAULT_RULES

MAX_LLM_KEY = 400  # characters of an LLM key kept: a dozen short phrases


@register_op
class GetObservationOp(Op):
    """Turn the kept messages into memories with message time and, when they name one, event time.

    With an LLM: ``observation`` memories — one fact each about the user in the third person, with
    ``when_to_use`` and keywords — up to ``max_observations_per_message`` per message. Without
    one (or for a message the LLM's reply leaves out): ``conversation`` memories of the user's own
    words (still what the user said, so not ``observation``). The LLM also writes each fact's search key
    (facts, names, dates in words), kept in ``metadata["llm_key"]`` and stored in the memory's expanded
    key (:mod:`flowmem.scoring.keys`); offline, the store builds the key from rules alone.
    A message that states a single-valued fact — one that a later message may supersede
    (:mod:`flowmem.scoring.slots`) — becomes one memory per fact it states
    (:func:`flowmem.scoring.facts.split_facts`: "I live in Milan with my dog Rex" is "I live in Milan"
    and "my dog Rex"), so superseding one fact keeps the others. Other messages
    stay whole (``split_facts: changeable``): splitting every message (``all``) cost 4.4 points of
    recall@5 on LoCoMo (0.460 → 0.416; @20 0.548 → 0.507), its facts crowding out other messages in
    the top k, and gains nothing offline, where only single-valued facts are ever superseded. ``none`` keeps every
    message whole. Either way the message time is when it was said and the event time is read from
    the fact's own words relative to then ("next Thursday"). Ids derive from the message and the
    fact's place in it, so a rerun makes the same memories; every memory keeps the message as its source.
    """

    class Params(OpParams):
        max_observations_per_message: int = Field(3, ge=1, le=10, description="at most this many facts per message")
        split_facts: Literal["changeable", "all", "none"] = Field(
            "changeable",
            description="offline: one memory per fact of a message stating a single-valued fact (changeable), "
            "of every message (all), or each message whole (none)",
        )
        split_min_info: int = Field(
            2,
            ge=1,
            le=3,
            description="offline: the info score (0-3) a sentence or clause needs to be a fact of its own",
        )

    params: Params
    reads = (INFO_MESSAGES, USER_ID, WORKSPACE_ID)
    writes = (NEW_MEMORIES,)
    uses = ("llm",)
    degradation = "keeps the messages as conversation memories in the user's own words"

    async def execute(self, ctx: OpContext) -> None:
        messages: list[Message] = ctx[INFO_MESSAGES]
        if messages and self.llm.available:
            ctx[NEW_MEMORIES] = await self._observations(ctx, messages)
            ctx.note("source", "llm observations")
        else:
            ctx[NEW_MEMORIES] = self._conversations(ctx, messages)
            ctx.note("source", "messages as conversation memories (no LLM)")

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        ctx[NEW_MEMORIES] = self._conversations(ctx, ctx[INFO_MESSAGES])

    def _conversations(self, ctx: OpContext, messages: list[Message]) -> list[Memory]:
        # A fact without a time of its own that uses an event named with one earlier in the batch ("on my last day")
        # takes its time (flowmem.timeexpr.anchors).
        # … and one that says "he"/"she" of the person named last before it is keyed with the name (referents).
        return with_referents(with_anchored_times([memory for m in messages for memory in self._own_words(ctx, m)]))

    def _own_words(self, ctx: OpContext, message: Message) -> list[Memory]:
        """``message`` as ``conversation`` memories: one per fact it states (the first keeps the message's id)."""
        workspace, target = ctx[WORKSPACE_ID], ctx[USER_ID]
        mode, text = self.params.split_facts, message.content
        wanted = mode == "all" or (mode == "changeable" and (DEFAULT_RULES.find(text) or several_times(text)))
        facts = split_facts(text, min_info=self.params.split_min_info) if wanted else []
        # the assistant's restatement: its times are read from what it says back, not from its "noted" ("Lovely! I've
        # noted your sister's wedding on Saturday the 22nd": the coming 22nd)
        restating = bool(message.metadata.get(RESTATES))
        timed = message.model_copy(update={"content": restated_words(text)}) if restating else message
        if len(facts) <= 1:  # its times read in ``timed``'s words: the whole reply less its acknowledgements
            return [memory_from_message(timed, workspace_id=workspace, target=target, content=text)]
        return [
            memory_from_message(
                timed, workspace_id=workspace, target=target, index=i, content=fact,
                event_text=said_back(fact) if restating else fact,
            )
            for i, fact in enumerate(facts)
        ]  # fmt: skip

    async def _observations(self, ctx: OpContext, messages: list[Message]) -> list[Memory]:
        prompt = load_prompt("get_observation")
        listing = "\n".join(
            f"{i}. [{m.time_created:%Y-%m-%d %H:%M}] {' '.join(m.content.split())}" for i, m in enumerate(messages)
        )
        user = prompt.user.format(user=ctx[USER_ID], messages=listing)
        reply = await ask(self.llm, ctx, prompt.system, user, json_mode=True)
        facts = _facts(parse_json(reply.text), len(messages), self.params.max_observations_per_message)
        memories: list[Memory] = []
        missing = 0
        for i, message in enumerate(messages):
            found = facts.get(i, [])
            if not found:
                missing += 1
                memories.extend(self._own_words(ctx, message))
                continue
            for n, fact in enumerate(found):
                memory = memory_from_message(
                    message, workspace_id=ctx[WORKSPACE_ID], target=ctx[USER_ID], index=n,
                    content=fact["content"], memory_type="observation", when_to_use=fact["when_to_use"],
                    keywords=fact["keywords"] or None,
                )  # fmt: skip
                if fact["key"]:
                    memory = memory.model_copy(update={"metadata": {**memory.metadata, LLM_KEY: fact["key"]}})
                memories.append(memory)
        if missing:
            ctx.warn(
                f"LLM gave no usable facts for {missing} of {len(messages)} messages; kept as conversation memories"
            )
        return memories


def _facts(data: Any, count: int, limit: int) -> dict[int, list[dict[str, Any]]]:
    """Facts by message index from ``[{"message": 0, "content": …, "when_to_use": …, "keywords": […], "key": …}]``."""
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
                # Bounded like a few facts' worth of phrases: a runaway reply must not bloat every lexical index.
                "key": " ".join(str(item.get("key") or "").split())[:MAX_LLM_KEY],
            }
        )
    return facts
