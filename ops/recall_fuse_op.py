"""``recall_fuse_op``: fuse vector recall (``memories``) and lexical recall (``lexical_memories``) into one list."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.keys import LEXICAL_MEMORIES, MEMORIES, QUERY_VECTOR, WORKSPACE_ID
from flowmem.schema.memory import Memory
from flowmem.scoring import near_miss
from flowmem.vector_store.lexical_text import LEXICAL

RECALL = "recall"
COSINE = "cosine"  # the vector recall's cosine similarity, kept when recall becomes the fused score
VECTOR_RANK = "vector_rank"
LEXICAL_RANK = "lexical_rank"
FUSED = "fused"


@register_op
class RecallFuseOp(Op):
    """Merge the vector and the lexical candidates into one list, each memory's recall score the fused score.

    Elasticsearch's own hybrid fusion (RRF) needs a paid licence, so fusion happens here, on every
    store alike. Three documented methods:

    * ``union`` (the default) — no score fusion: word recall only adds candidates, and every
      candidate's base is its cosine (of word-only ones computed from their stored vectors; 0
      without ``query_vector``), so the ranking further down (``semantic_rank_op``, which blends
      in word overlap, and ``fuse_rerank_op``) decides as it does for vector recall alone. The
      default because the flaw it fixes is recall — most missed answers never enter the vector
      candidates — while the scores the later ops were built on stay what they were. Measured on
      the LoCoMo dev split and the sample questions it beat both fusions (BENCHMARKS.md).

    * ``rrf`` — reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009):
      ``Σ weight / (rrf_k + rank)`` over the lists a memory is in, ``rrf_k`` 60 as in the paper.
      Ranks only, so BM25's unbounded scores and the cosine's narrow band need no calibration.
      Divided by its largest possible value (first in both lists), so it lies in (0, 1]: a memory
      first in one list only has 0.5 with equal weights, the 20th of one list 0.38 — all well
      above ``fuse_rerank_op``'s threshold (0.1).
    * ``linear`` — min-max normalised scores, weighted: ``(wv·cos' + wl·bm25') / (wv + wl)``, each
      score scaled to [0, 1] over the candidates (a memory missing from a list has 0 there). The
      weakest candidate of both lists gets 0, which ``fuse_rerank_op``'s threshold then drops.

    Every memory keeps each contribution: ``cosine`` (vector similarity), ``vector_rank``,
    ``lexical`` (BM25), ``lexical_rank`` (absent when the list lacks it) and ``fused``; ``recall``
    becomes the fused score, the base ``semantic_rank_op`` and ``fuse_rerank_op`` build on.
    A memory found by words only has no cosine from the vector search; when the flow has the
    query's vector (``query_vector``, written by ``retrieve_memory_op``) it is computed from the
    memory's stored vector (one read of a few vectors), so ``union`` and ``linear`` use true
    cosines and ``--explain`` shows them; otherwise it has none (both count it 0).
    The list is sorted by the fused score (ties: the vector list's order first) and cut to ``top_k``.
    """

    class Params(OpParams):
        method: Literal["union", "rrf", "linear"] = Field(
            "union", description="union with cosine bases, reciprocal rank fusion, or min-max linear"
        )
        rrf_k: int = Field(60, ge=1, description="rrf: the rank constant (60, as in Cormack et al. 2009)")
        vector_weight: float = Field(1.0, ge=0, description="the vector list's weight (rrf and linear)")
        lexical_weight: float = Field(1.0, ge=0, description="the lexical list's weight (rrf and linear)")
        top_k: int | None = Field(None, ge=1, description="keep the best this many fused memories (None: all)")
        cosine_for_lexical_only: bool = Field(
            True, description="compute the cosine of memories found by words only from their stored vectors"
        )

        @model_validator(mode="after")
        def _some_weight(self) -> RecallFuseOp.Params:
            if self.vector_weight + self.lexical_weight <= 0:
                raise ValueError("vector_weight and lexical_weight are both 0; give at least one a weight > 0")
            return self

    params: Params
    reads = (MEMORIES, LEXICAL_MEMORIES, WORKSPACE_ID)
    optional_reads = (QUERY_VECTOR,)
    writes = (MEMORIES,)
    uses = ("vector_store",)

    async def execute(self, ctx: OpContext) -> None:
        vector_list = list(ctx[MEMORIES])
        lexical_list = list(ctx[LEXICAL_MEMORIES])
        p = self.params
        merged: dict[str, Memory] = {}
        for rank, memory in enumerate(vector_list, 1):
            memory.set_score(COSINE, memory.scores.get(RECALL, 0.0), memory.score_sources.get(RECALL, self.label))
            memory.set_score(VECTOR_RANK, float(rank), self.label)
            merged[memory.memory_id] = memory
        lexical_only: list[Memory] = []
        for rank, memory in enumerate(lexical_list, 1):
            kept = merged.get(memory.memory_id)
            if kept is None:
                kept = merged[memory.memory_id] = memory
                lexical_only.append(memory)
            kept.set_score(LEXICAL, memory.scores.get(LEXICAL, 0.0), memory.score_sources.get(LEXICAL, self.label))
            kept.set_score(LEXICAL_RANK, float(rank), self.label)
        await self._cosines(ctx, lexical_only)
        memories = list(merged.values())
        if p.method == "rrf":
            fused = self._rrf(memories)
        elif p.method == "linear":
            fused = self._linear(memories)
        else:  # union
            fused = [m.scores.get(COSINE, 0.0) for m in memories]
        for memory, score in zip(memories, fused, strict=True):
            memory.set_score(FUSED, score, self.label)
            memory.set_score(RECALL, score, self.label)
        memories.sort(key=lambda m: m.scores[FUSED], reverse=True)  # stable: the vector list's order breaks ties
        limit = p.top_k or len(memories)
        ctx.note(
            "fusion",
            {"method": p.method, "vector": len(vector_list), "lexical": len(lexical_list),
             "lexical_only": len(lexical_only), "kept": min(limit, len(memories))},
        )  # fmt: skip
        ctx.note("dropped", [_dropped(m, self.label, limit) for m in memories[limit:]])
        ctx[MEMORIES] = memories[:limit]

    def _rrf(self, memories: list[Memory]) -> list[float]:
        p = self.params
        best = (p.vector_weight + p.lexical_weight) / (p.rrf_k + 1)
        out = []
        for memory in memories:
            score = 0.0
            if VECTOR_RANK in memory.scores:
                score += p.vector_weight / (p.rrf_k + memory.scores[VECTOR_RANK])
            if LEXICAL_RANK in memory.scores:
                score += p.lexical_weight / (p.rrf_k + memory.scores[LEXICAL_RANK])
            out.append(score / best)
        return out

    def _linear(self, memories: list[Memory]) -> list[float]:
        p = self.params
        cosines = _min_max([m.scores.get(COSINE) for m in memories])
        lexical = _min_max([m.scores.get(LEXICAL) for m in memories])
        total = p.vector_weight + p.lexical_weight
        return [(p.vector_weight * c + p.lexical_weight * w) / total for c, w in zip(cosines, lexical, strict=True)]

    async def _cosines(self, ctx: OpContext, memories: list[Memory]) -> None:
        query = ctx.get(QUERY_VECTOR)
        if not memories or query is None or not self.params.cosine_for_lexical_only:
            return
        # Both unit length: the dot products are the cosines (Elasticsearch computes them on the node).
        cosines = await self.vector_store.similarities(ctx[WORKSPACE_ID], query, [m.memory_id for m in memories])
        for memory in memories:
            cosine = cosines.get(memory.memory_id)
            if cosine is not None:
                memory.set_score(COSINE, cosine, self.label)


def _min_max(values: list[float | None]) -> list[float]:
    """Each value scaled to [0, 1] over the known ones (all equal: 1); a missing value is 0."""
    known = [v for v in values if v is not None]
    if not known:
        return [0.0] * len(values)
    low, high = min(known), max(known)
    return [0.0 if v is None else (1.0 if high == low else (v - low) / (high - low)) for v in values]


def _dropped(memory: Memory, op: str, limit: int) -> dict[str, Any]:
    return near_miss(memory, op, f"fused {memory.scores[FUSED]:.3f}: beyond the best {limit}")
