"""``lexical_recall_op``: word (BM25) recall of memories in the caller's scope, beside vector recall."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpIO, OpParams, register_op
from flowmem.keys import LEXICAL_MEMORIES, QUERY, QUERY_TIMES, TIMESTAMP, USER_ID, WORKSPACE_ID, TextKeyName, text_key
from flowmem.schema.kinds import RECALLED_TYPES
from flowmem.schema.memory import Memory
from flowmem.scoring import near_miss
from flowmem.scoring.same_content import content_key
from flowmem.timeexpr.query import words_to_match
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.lexical_text import LEXICAL

LEXICAL_RANK = "lexical_rank"


@register_op
class LexicalRecallOp(Op):
    """Fetch the user's memories that share the most (rare) words with the recall text, by BM25.

    The store's lexical search (:meth:`~flowmem.vector_store.base.VectorStore.lexical_search`):
    the same scope as ``retrieve_memory_op`` (the ``workspace_id``, memories whose target is
    ``user_id`` of the recalled types, status ``valid`` unless ``include_expired``), the words of
    the recall text (stop words left out; Chinese as characters and pairs). The time expressions
    of the text ("last weekend") and its recency operator ("when did I *last* go hiking?") are left out too
    (:func:`~flowmem.timeexpr.query.words_to_match`): matching the time is the time boost's job and ordering by
    when ``fuse_rerank_op``'s, and their words ("last") would recall memories that merely say them. Duplicate
    contents are dropped (the better-scored copy stays).

    Writes ``lexical_memories`` — its own key, so it can run in a parallel branch beside
    ``retrieve_memory_op`` (``recall_fuse_op`` then fuses the two) — best first, each with
    ``scores["lexical"]`` (BM25, a ranking within this search) and ``scores["lexical_rank"]``
    (1 for the best). Dropped duplicates are noted in the trace (``dropped``).
    """

    class Params(OpParams):
        recall_key: TextKeyName = Field("query", description="the context key holding the text to recall for")
        # 20: as many as retrieve_memory_op fetches in the shipped config, so neither list dominates a fusion.
        top_k: int = Field(20, ge=1, le=10_000, description="how many memories to fetch")
        include_expired: bool = Field(False, description="also recall memories an update has expired")

    params: Params
    reads = (QUERY, WORKSPACE_ID, USER_ID)
    optional_reads = (TIMESTAMP, QUERY_TIMES)
    writes = (LEXICAL_MEMORIES,)
    uses = ("vector_store",)

    @classmethod
    def io(cls, params: OpParams) -> OpIO:
        recall_key = params.recall_key if isinstance(params, LexicalRecallOp.Params) else QUERY
        reads = tuple(dict.fromkeys((text_key(recall_key), WORKSPACE_ID, USER_ID)))
        return OpIO(reads, cls.optional_reads, cls.writes)

    async def execute(self, ctx: OpContext) -> None:
        now = ctx.get(TIMESTAMP) or datetime.now()
        text = words_to_match(ctx[text_key(self.params.recall_key)] or "", now, ctx.get(QUERY_TIMES))
        status = None if self.params.include_expired else "valid"
        flt = MemoryFilter(target=ctx[USER_ID], status=status, memory_type=RECALLED_TYPES)
        found = await self.vector_store.lexical_search(ctx[WORKSPACE_ID], text, self.params.top_k, flt)
        kept: list[Memory] = []
        near_misses: list[dict[str, Any]] = []
        seen: set[str] = set()
        for memory in found:  # best first: the first copy of a content is the best-scored one
            key = content_key(memory.content)
            if key in seen:
                near_misses.append(near_miss(memory, self.label, "duplicate content of a better-scored memory"))
                continue
            seen.add(key)
            memory.set_score(LEXICAL, memory.scores.pop(LEXICAL, 0.0), self.label)
            memory.set_score(LEXICAL_RANK, float(len(kept) + 1), self.label)
            kept.append(memory)
        ctx.note("recalled", len(found))
        ctx[LEXICAL_MEMORIES] = kept
        ctx.note("dropped", near_misses)
