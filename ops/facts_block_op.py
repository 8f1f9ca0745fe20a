"""``facts_block_op``: the user's facts for the ``facts`` block, condensed to ``max_facts``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import FACTS, QUERY, USER_ID, WORKSPACE_ID
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_json
from flowmem.schema.kinds import MemoryType
from flowmem.schema.memory import Memory
from flowmem.scoring.same_content import content_key
from flowmem.vector_store.filters import MemoryFilter

FACT_TYPES: tuple[MemoryType, ...] = ("observation", "obs_customized")


@register_op
class FactsBlockOp(Op):
    """The user's valid facts (observations), at most ``max_facts``, condensed when there are more → ``facts``.

    LlamaIndex's ``FactExtractionMemoryBlock`` over the memories flowmem already extracted. Which
    memories (``select``): ``relevant`` — the ``candidate_k`` of the user's valid memories of
    ``memory_types`` nearest the query (one vector search; without a query, ``recent`` is used and
    the trace says so); ``recent`` — the ``candidate_k`` created last, newest first (one ordered, limited read:
    :meth:`~flowmem.vector_store.base.VectorStore.newest`). Either way the op reads at most ``candidate_k``
    memories, however many facts the user has. Exact duplicates (:func:`~flowmem.scoring.same_content.content_key`)
    are merged first, the most relevant (or newest) copy staying.

    When more than ``max_facts`` remain (``condense``): with an LLM (``auto``, when one is configured),
    it condenses them into at most ``max_facts`` — merging facts that say the same thing and keeping the
    newer of two that contradict; offline (``offline``, or no LLM), the first ``max_facts`` are kept and
    the rest dropped. Offline condensing rewrites nothing and merges only exact duplicates: it cannot
    tell that two wordings mean the same, nor which of two facts is out of date (the write path's
    superseding already expired most of those). The trace (``facts`` note) says which was done.
    """

    class Params(OpParams):
        max_facts: int = Field(20, ge=1, le=200, description="at most this many facts in the block")
        select: Literal["relevant", "recent"] = Field(
            "relevant", description="relevant: nearest the query (one vector search); recent: the newest"
        )
        candidate_k: int = Field(
            50, ge=1, le=1000, description="how many memories are read: the nearest (relevant) or the newest (recent)"
        )
        memory_types: list[MemoryType] = Field(
            default_factory=lambda: list(FACT_TYPES), description="memory types that are facts"
        )
        condense: Literal["auto", "offline"] = Field(
            "auto", description="auto: the LLM condenses when one is configured; offline: keep the first max_facts"
        )

    params: Params
    reads = (WORKSPACE_ID, USER_ID)
    optional_reads = (QUERY,)
    writes = (FACTS,)
    uses = ("llm", "embedding_model", "vector_store")
    degradation = "keeps the first max_facts facts, not condensed"

    _facts: list[Memory] | None = None

    async def execute(self, ctx: OpContext) -> None:
        p = self.params
        query = (ctx.get(QUERY) or "").strip()
        select = p.select if query or p.select == "recent" else "recent"
        found = await (self._relevant(ctx, query) if select == "relevant" else self._recent(ctx))
        facts, merged = _merge_duplicates(found)
        self._facts = facts
        note: dict[str, Any] = {
            "select": select if select == p.select else f"{select} (no query to be relevant to)",
            "found": len(found),
            "duplicates_merged": merged,
        }
        if len(facts) <= p.max_facts:
            ctx[FACTS] = [m.content for m in facts]
            ctx.note("facts", {**note, "kept": len(facts), "condensed": "no: within max_facts"})
            return
        if p.condense == "auto" and self.llm.available:
            condensed = await self._condense(ctx, facts)
            if condensed:
                ctx[FACTS] = condensed
                ctx.note("facts", {**note, "kept": len(condensed), "condensed": f"by the LLM from {len(facts)}"})
                return
            ctx.warn(f"the LLM's reply held no facts; kept the first {p.max_facts} of {len(facts)} instead")
        ctx[FACTS] = [m.content for m in facts[: p.max_facts]]
        why = "offline (no LLM)" if not self.llm.available or p.condense == "offline" else "offline (bad LLM reply)"
        ctx.note(
            "facts", {**note, "kept": p.max_facts, "condensed": f"{why}: the last {len(facts) - p.max_facts} dropped"}
        )

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        ctx[FACTS] = [m.content for m in (self._facts or [])[: self.params.max_facts]]

    def _filter(self, ctx: OpContext) -> MemoryFilter:
        return MemoryFilter(target=ctx[USER_ID], status="valid", memory_type=tuple(self.params.memory_types))

    async def _relevant(self, ctx: OpContext, query: str) -> list[Memory]:
        vector = await self.embedding_model.embed_one(query, kind="query")
        return await self.vector_store.search(ctx[WORKSPACE_ID], vector, self.params.candidate_k, self._filter(ctx))

    async def _recent(self, ctx: OpContext) -> list[Memory]:
        found = await self.vector_store.newest(ctx[WORKSPACE_ID], self._filter(ctx), limit=self.params.candidate_k)
        found.sort(key=lambda m: (m.updated_at, m.created_at), reverse=True)
        return found

    async def _condense(self, ctx: OpContext, facts: list[Memory]) -> list[str]:
        prompt = load_prompt("facts_condense")
        newest_first = sorted(facts, key=lambda m: (m.updated_at, m.created_at), reverse=True)
        listing = "\n".join(f"- {' '.join(m.content.split())}" for m in newest_first)
        system = prompt.system.format(max_facts=self.params.max_facts)
        reply = await ask(self.llm, ctx, system, prompt.user.format(user=ctx[USER_ID], facts=listing), json_mode=True)
        return _reply_facts(parse_json(reply.text), self.params.max_facts)


def _merge_duplicates(memories: list[Memory]) -> tuple[list[Memory], int]:
    """The memories without exact duplicates (the first copy stays), and how many were merged."""
    seen: set[str] = set()
    kept: list[Memory] = []
    for memory in memories:
        key = content_key(memory.content)
        if key and key not in seen:
            seen.add(key)
            kept.append(memory)
    return kept, len(memories) - len(kept)


def _reply_facts(data: Any, limit: int) -> list[str]:
    """Facts from ``{"facts": [...]}`` (or a bare list): non-empty one-line strings, each once, at most ``limit``."""
    if isinstance(data, dict):
        data = data.get("facts")
    if not isinstance(data, list):
        return []
    facts: list[str] = []
    seen: set[str] = set()
    for item in data:
        text = " ".join(str(item).split()) if isinstance(item, (str, int, float)) else ""
        key = content_key(text)
        if key and key not in seen:
            seen.add(key)
            facts.append(text)
    return facts[:limit]
