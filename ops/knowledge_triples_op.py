"""``knowledge_triples_op``: (subject, relation, object) facts of the user's memories, with the time each held."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import QUERY, TRIPLES, USER_ID, WORKSPACE_ID
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_json
from flowmem.schema.kinds import RECALLED_TYPES
from flowmem.schema.memory import Memory
from flowmem.scoring.entities import entity_key
from flowmem.scoring.triples import Triple, held, merge, triples_of
from flowmem.vector_store.filters import MemoryFilter


@register_op
class KnowledgeTriplesOp(Op):
    """Read the user's memories as knowledge triples and write them to ``triples``, those the query names first.

    Which memories: the ``max_memories`` created last (one ordered, limited read,
    :meth:`~flowmem.vector_store.base.VectorStore.newest`) and the ``query_k`` best matching the query's words
    (BM25: the names it asks about), so a run reads at most ``max_memories + query_k`` memories however many the
    user has; a fact said long before the newest and not named by the query is left out.

    Offline (the default), :mod:`flowmem.scoring.triples` reads each memory's single-valued facts (the slot table:
    lives_in, works_at, job_title, partner, has_cat, diet, …) and named relations ("my manager Dana"). With
    ``use_llm`` and an LLM configured, one call reads those memories instead (any relation it finds); an unusable
    reply falls back to the rules, with a warning. Either way a triple holds from its memory's
    event time (else when it was said) until the memory expired: the write path's expiry (``contra_repeat_op``)
    closes a superseded fact, so "we moved to Berkeley" ends ``lives_in Oakland``.

    ``triples`` is a list of ``{"subject", "relation", "object", "valid_from", "valid_to"}`` (ISO 8601 wall-clock
    times; ``valid_to`` ``None`` while it holds): those whose subject or object the query names, then the ones that
    still hold, newest first; then the closed ones (``include_expired``); at most ``max_triples``.
    """

    class Params(OpParams):
        include_expired: bool = Field(True, description="also the facts that held once (closed, with valid_to)")
        max_triples: int = Field(20, ge=1, le=10_000, description="how many triples to write to `triples`")
        use_llm: bool = Field(False, description="ask the LLM (one call per run) instead of the offline rules")
        max_memories: int = Field(200, ge=1, le=1000, description="how many of the newest memories are read")
        query_k: int = Field(20, ge=0, le=200, description="and how many memories best matching the query's words")

    params: Params
    reads = (WORKSPACE_ID, USER_ID)
    optional_reads = (QUERY,)
    writes = (TRIPLES,)
    uses = ("vector_store", "llm")
    degradation = "reads the triples by the offline rules"

    async def execute(self, ctx: OpContext) -> None:
        await self._run(ctx, use_llm=self.params.use_llm and self.llm.available)

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        await self._run(ctx, use_llm=False)

    async def _run(self, ctx: OpContext, *, use_llm: bool) -> None:
        status = None if self.params.include_expired else "valid"
        flt = MemoryFilter(target=ctx[USER_ID], status=status, memory_type=RECALLED_TYPES)
        memories = await self._memories(ctx, flt)
        found = await self._llm_triples(ctx, memories) if use_llm and memories else None
        if found is None:
            found = [t for memory in memories for t in triples_of(memory)]
        triples = merge(found)
        ctx.note("read", {"memories": len(memories), "triples": len(triples), "by": "llm" if use_llm else "rules"})
        ctx[TRIPLES] = [t.as_dict() for t in _ranked(triples, ctx.get(QUERY) or "")][: self.params.max_triples]

    async def _memories(self, ctx: OpContext, flt: MemoryFilter) -> list[Memory]:
        """The newest memories and those the query's words match (each once), in the order they were created."""
        store, workspace, query = self.vector_store, ctx[WORKSPACE_ID], ctx.get(QUERY) or ""
        newest, named = await asyncio.gather(
            store.newest(workspace, flt, limit=self.params.max_memories),
            store.lexical_search(workspace, query, self.params.query_k, flt),  # no words, no read
        )
        found = {m.memory_id: m for m in [*newest, *named]}
        return sorted(found.values(), key=lambda m: (m.created_at, m.memory_id))

    async def _llm_triples(self, ctx: OpContext, memories: list[Memory]) -> list[Triple] | None:
        prompt = load_prompt("knowledge_triples")
        listing = "\n".join(
            f"{i}. [{m.created_at:%Y-%m-%d}{'' if m.status == 'valid' else ', no longer true'}] {m.content}"
            for i, m in enumerate(memories)
        )
        reply = await ask(self.llm, ctx, prompt.system, prompt.user.format(user=ctx[USER_ID], memories=listing),
                          json_mode=True)  # fmt: skip
        triples = _parse(parse_json(reply.text), memories)
        if not triples:
            ctx.warn("LLM gave no usable triples; read by the offline rules")
            return None
        return triples


def _ranked(triples: list[Triple], query: str) -> list[Triple]:
    asked = entity_key(query)

    def order(t: Triple) -> tuple[bool, bool, bool, str]:
        named = bool(asked) and entity_key(t.object) in asked  # "is Sam coming?" → (alice, partner, Sam)
        # "where does Alice live?" → lives_in: a word of the relation, by its stem, in the query
        about = bool(asked) and any(len(w) > 2 and w != "has" and w[:4] in asked for w in t.relation.split("_"))
        return named, about, t.valid_to is None, (t.valid_from.isoformat() if t.valid_from else "")

    return sorted(triples, key=order, reverse=True)


def _parse(data: Any, memories: list[Memory]) -> list[Triple]:
    """Triples from ``[{"memory": 0, "subject": …, "relation": …, "object": …}, …]``, timed by their memory."""
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    found: list[Triple] = []
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict):
            continue
        try:
            memory = memories[int(str(item.get("memory", "")).strip())]
        except (ValueError, IndexError):
            continue
        parts = [" ".join(str(item.get(k) or "").split()) for k in ("subject", "relation", "object")]
        if all(parts):
            start, end = held(memory)
            relation = "_".join(parts[1].lower().split())
            found.append(Triple(parts[0], relation, parts[2], start, end, (memory.memory_id,)))
    return found
