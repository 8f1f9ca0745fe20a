"""``retrieve_memory_op``: vector recall of memories in the caller's scope."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np
from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpIO, OpParams, register_op
from flowmem.keys import (
    MEMORIES,
    QUERY,
    QUERY_TIMES,
    QUERY_VECTOR,
    TIMESTAMP,
    USER_ID,
    WORKSPACE_ID,
    Key,
    TextKeyName,
    text_key,
)
from flowmem.schema.kinds import RECALLED_TYPES
from flowmem.schema.memory import Memory
from flowmem.scoring import near_miss
from flowmem.scoring.same_content import content_key
from flowmem.scoring.stages import TIME_RECALL
from flowmem.timeexpr import ExtractedTime, has_time_words
from flowmem.timeexpr.query import times_in
from flowmem.vector_store.filters import MemoryFilter

RECALL = "recall"


def vector_key(recall_key: str) -> Key[np.ndarray]:
    """The context key the recall text's vector goes to: ``query`` → ``query_vector``."""
    if recall_key == QUERY:
        return QUERY_VECTOR
    return Key(f"{recall_key}_vector", np.ndarray, f"the unit vector of '{recall_key}' (retrieve_memory_op)")


@register_op
class RetrieveMemoryOp(Op):
    """Embed the recall text and fetch the most similar valid memories of the user, in scope.

    Searches the ``workspace_id`` scope for memories whose target is ``user_id`` (status
    ``valid`` unless ``include_expired``; of the recalled types, not the ``entity`` descriptions that
    ``entity_memory_op`` keeps for the ``entities`` block), removes duplicates (same id, or the same content
    twice: the better-scored copy stays) and drops those below ``threshold_score``. Each memory
    gets ``scores["recall"]`` = cosine similarity. Dropped ones are noted in the trace (``dropped``).

    With ``time_recall_k`` > 0, a recall text that names a time ("last weekend", read by the
    offline rules against the run's ``timestamp``) also fetches up to that many memories said at
    that time and as many whose event happens then — so the time boost further down the flow has
    them to boost even when their wording is far from the query's. Every memory those searches found
    (whether or not the vector search found it too) is marked ``scores["time_recall"]`` = 1.0, with
    ``explain["time_recall"]`` saying how it matched ("said in 'last weekend'"): ops that cut by wording
    (``semantic_rank_op``) keep it, since it was fetched for its time.

    The recall text's vector is written to ``<recall_key>_vector`` (``query_vector``), so ops further
    down the flow that compare memories with the query (``neighbour_context_op``, ``second_hop_op``)
    need not embed it again (an embedding costs more than the rest of the flow).
    """

    class Params(OpParams):
        recall_key: TextKeyName = Field("query", description="the context key holding the text to recall for")
        top_k: int = Field(3, ge=1, le=10_000, description="how many memories to fetch")
        threshold_score: float | None = Field(None, description="drop memories whose similarity is below this")
        include_expired: bool = Field(False, description="also recall memories an update has expired")
        time_recall_k: int = Field(
            0, ge=0, description="also fetch this many memories said / happening at the time the text names (0: off)"
        )

    params: Params
    reads = (QUERY, WORKSPACE_ID, USER_ID)
    optional_reads = (TIMESTAMP, QUERY_TIMES)
    writes = (MEMORIES, QUERY_VECTOR)
    uses = ("embedding_model", "vector_store")

    @classmethod
    def io(cls, params: OpParams) -> OpIO:
        recall_key = params.recall_key if isinstance(params, RetrieveMemoryOp.Params) else QUERY
        reads = tuple(dict.fromkeys((text_key(recall_key), WORKSPACE_ID, USER_ID)))
        return OpIO(reads, cls.optional_reads, (MEMORIES, vector_key(recall_key)))

    async def execute(self, ctx: OpContext) -> None:
        text = ctx[text_key(self.params.recall_key)] or ""
        vector = await self.embedding_model.embed_one(text, kind="query")
        status = None if self.params.include_expired else "valid"
        flt = MemoryFilter(target=ctx[USER_ID], status=status, memory_type=RECALLED_TYPES)
        when = self._time_named(ctx, text)
        searches: list[tuple[int, MemoryFilter | None]] = [(self.params.top_k, flt)]
        if when is not None:
            span = (when.start, when.end)
            k = self.params.time_recall_k
            searches += [(k, flt.model_copy(update={key: span})) for key in ("said_between", "happens_between")]
        # The recall and the time recall together: one round trip to the store (Elasticsearch: one _msearch).
        found, *timed = await self.vector_store.search_many(ctx[WORKSPACE_ID], vector, searches)
        if when is not None:
            found = self._add_time_recall(ctx, when, found, timed)
        near_misses: list[dict[str, Any]] = []
        kept: list[Memory] = []
        seen_content: set[str] = set()
        threshold = self.params.threshold_score
        for memory in found:  # best first, so the first copy of a content is the best-scored one
            similarity = memory.scores.pop("similarity", 0.0)
            memory.set_score(RECALL, similarity, self.label)
            key = content_key(memory.content)
            if key in seen_content:
                near_misses.append(near_miss(memory, self.label, "duplicate content of a better-scored memory"))
            elif threshold is not None and similarity < threshold:
                reason = f"similarity {similarity:.3f} < threshold_score {threshold}"
                near_misses.append(near_miss(memory, self.label, reason))
            else:
                seen_content.add(key)
                kept.append(memory)
        ctx.note("recalled", len(found))
        ctx[MEMORIES] = kept
        ctx[vector_key(self.params.recall_key)] = vector
        ctx.note("dropped", near_misses)

    def _time_named(self, ctx: OpContext, text: str) -> ExtractedTime | None:
        """The time the recall text names, when time recall is on and it names one."""
        if not self.params.time_recall_k or not has_time_words(text):
            return None
        found = times_in(text, ctx.get(TIMESTAMP) or datetime.now(), ctx.get(QUERY_TIMES))
        return found[0] if found else None

    def _add_time_recall(
        self, ctx: OpContext, when: ExtractedTime, found: list[Memory], timed: list[list[Memory]]
    ) -> list[Memory]:
        seen = {m.memory_id for m in found}
        extra: list[Memory] = []
        why: dict[str, list[str]] = {}
        for how, hits in zip(("said", "happens"), timed, strict=True):
            for memory in hits:
                why.setdefault(memory.memory_id, []).append(how)
                if memory.memory_id not in seen:
                    seen.add(memory.memory_id)
                    extra.append(memory)
        ctx.note("time_recall", {"expression": when.expression, "added": len(extra), "matched": len(why)})
        merged = found + extra
        for memory in merged:
            if memory.memory_id in why:
                memory.set_score(TIME_RECALL, 1.0, self.label)
                memory.explain[TIME_RECALL] = f"{' and '.join(why[memory.memory_id])} in {when.expression!r}"
        merged.sort(key=lambda m: m.scores.get("similarity", 0.0), reverse=True)
        return merged
