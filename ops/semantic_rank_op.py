"""``semantic_rank_op``: re-rank recalled memories by relevance to the query."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import MEMORIES, QUERY, QUERY_TIMES, TIMESTAMP
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_indexed_scores, parse_json
from flowmem.schema.memory import Memory
from flowmem.scoring import near_miss
from flowmem.scoring.lexical import lexical_scores
from flowmem.scoring.same_content import content_key
from flowmem.scoring.stages import time_recalled
from flowmem.timeexpr.query import QueryTimes, words_to_match

RANK = "rank"
RECALL = "recall"


@register_op
class SemanticRankOp(Op):
    """Re-rank memories by relevance to the query (LLM when configured) and keep the best ones.

    Runs when ``enable_ranker`` is on and there are more memories than
    ``output_memory_max_count``: removes exact-duplicate contents, asks the LLM for a 0.0–1.0
    relevance per memory, sorts by it and keeps ``output_memory_max_count``. A memory the LLM
    reply leaves out, or scores out of range, keeps its recall score (clamped), so a malformed
    reply never loses or duplicates a memory. Without an LLM, ``offline_scorer`` decides: ``recall``
    keeps the recall score as the rank score; ``lexical`` (measured better on the LoCoMo dev data,
    see BENCHMARKS.md) blends it with the share of the query's idf-weighted words the memory
    contains — time words left to the time match, a recency operator ("last") to the recency order —
    ``lexical_weight`` of the way, for every memory, since it costs next to nothing. The words it reads are
    ``overlap_text``: the content and keywords, or the memory's lexical document — those plus its expanded key
    (facts and dates in the words questions use, :mod:`flowmem.scoring.keys`), what lexical search reads too.
    The trace says which scorer ran.
    The cut is by wording, so with ``keep_time_recalled`` it spares the memories recall fetched for the time
    the query names (``scores["time_recall"]``, :func:`flowmem.scoring.stages.time_recalled`): they were
    fetched for when they were said or happen, not for their words, and ``fuse_rerank_op``'s time match is
    what judges them; there are at most twice ``retrieve_memory_op``'s ``time_recall_k`` (said then,
    happening then), and the trace notes how many were kept beyond the limit (``kept_for_time``). ("what did I do
    last weekend?" fetches the Sunday at grandma's by its date; its words are far from the question's.)
    Every memory gets ``scores["rank"]``; dropped ones are noted in the trace (``dropped``).
    """

    class Params(OpParams):
        enable_ranker: bool = Field(True, description="rank when there are more memories than the limit")
        output_memory_max_count: int = Field(10, ge=1, description="how many memories to keep")
        offline_scorer: Literal["recall", "lexical"] = Field(
            "lexical", description="without an LLM: keep recall scores, or blend in word overlap with the query"
        )
        lexical_weight: float = Field(0.3, ge=0, le=1, description="the word overlap's share of the offline blend")
        overlap_text: Literal["content", "document"] = Field(
            "content",
            description="the words the overlap reads: content and keywords, or the lexical document (with the "
            "memory's expanded key)",
        )
        keep_time_recalled: bool = Field(
            True, description="also keep, beyond the limit, every memory recalled for the time the query names"
        )

    params: Params
    reads = (QUERY, MEMORIES, TIMESTAMP)
    optional_reads = (QUERY_TIMES,)
    writes = (MEMORIES,)
    uses = ("llm",)
    degradation = "keeps the recall scores as rank scores"

    async def execute(self, ctx: OpContext) -> None:
        memories = list(ctx[MEMORIES])
        near_misses: list[dict[str, Any]] = []
        limit = self.params.output_memory_max_count
        enabled = self.params.enable_ranker
        if enabled and len(memories) > limit:
            memories = self._dedupe(memories, near_misses)
        if enabled and len(memories) > limit and self.llm.available:
            scores = await self._llm_scores(ctx, memories)
            ctx.note("ranker", "llm")
        elif enabled and not self.llm.available and self.params.offline_scorer == "lexical":
            # Cheap enough to run whatever the count (the LLM path only runs when a cut is due).
            scores = self._lexical_scores(ctx[QUERY], ctx[TIMESTAMP], memories, ctx.get(QUERY_TIMES))
            ctx.note("ranker", f"recall blended with word overlap, weight {self.params.lexical_weight:g} (no LLM)")
        else:
            scores = {}
            ctx.note("ranker", "recall score (no LLM)" if enabled and len(memories) > limit else "off")
        self._apply(memories, scores)
        kept, beyond = self._cut(memories)
        for memory in beyond:
            reason = f"rank {memory.scores[RANK]:.3f}: beyond the best {limit}"
            near_misses.append(near_miss(memory, self.label, reason))
        if len(kept) > limit:
            ctx.note("kept_for_time", len(kept) - limit)
        ctx[MEMORIES] = kept
        ctx.note("dropped", near_misses)

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        memories = list(ctx[MEMORIES])
        self._apply(memories, {})
        ctx[MEMORIES], _ = self._cut(memories)

    def _cut(self, memories: list[Memory]) -> tuple[list[Memory], list[Memory]]:
        """The memories kept, best rank first, and those beyond the limit: the best ``output_memory_max_count``,
        and (``keep_time_recalled``) every one recalled for the time the query names, wherever it ranks."""
        memories = sorted(memories, key=lambda m: m.scores[RANK], reverse=True)
        limit, keep_timed = self.params.output_memory_max_count, self.params.keep_time_recalled
        kept: list[Memory] = []
        beyond: list[Memory] = []
        for i, memory in enumerate(memories):
            (kept if i < limit or (keep_timed and time_recalled(memory)) else beyond).append(memory)
        return kept, beyond

    def _dedupe(self, memories: list[Memory], near_misses: list[dict[str, Any]]) -> list[Memory]:
        seen: set[str] = set()
        unique = []
        for memory in memories:
            key = content_key(memory.content)
            if key in seen:
                near_misses.append(near_miss(memory, self.label, "duplicate content"))
                continue
            seen.add(key)
            unique.append(memory)
        return unique

    async def _llm_scores(self, ctx: OpContext, memories: list[Memory]) -> dict[int, float]:
        listing = "\n".join(f"{i}. {' '.join(m.content.split())}" for i, m in enumerate(memories))
        prompt = load_prompt("semantic_rank")
        reply = await ask(
            self.llm, ctx, prompt.system, prompt.user.format(query=ctx[QUERY], memories=listing), json_mode=True
        )
        scores, problems = parse_scores(reply.text, len(memories))
        if problems:
            ctx.warn(f"LLM ranking reply was partly unusable ({problems}); those memories keep their recall score")
        return scores

    def _lexical_scores(
        self, query: str, now: datetime, memories: list[Memory], known: QueryTimes | None
    ) -> dict[int, float]:
        # Time words ("last weekend") are the time match's business and "when did I last…" the recency order's,
        # not the word overlap's.
        overlap = lexical_scores(words_to_match(query, now, known), [self._words(m) for m in memories])
        weight = self.params.lexical_weight
        return {
            i: (1 - weight) * min(max(m.scores.get(RECALL, 0.0), 0.0), 1.0) + weight * overlap[i]
            for i, m in enumerate(memories)
        }

    def _words(self, memory: Memory) -> str:
        words = f"{memory.content} {' '.join(memory.keywords)}"
        # "document": what lexical_document indexes, untokenised (lexical_scores tokenises; 0.02 ms, not 0.8, a query)
        return f"{words} {memory.expanded_key}" if self.params.overlap_text == "document" else words

    def _apply(self, memories: list[Memory], scores: dict[int, float]) -> None:
        for i, memory in enumerate(memories):
            score = scores.get(i)
            if score is None:
                score = min(max(memory.scores.get(RECALL, 0.0), 0.0), 1.0)
            memory.set_score(RANK, score, self.label)


def parse_scores(text: str, count: int) -> tuple[dict[int, float], str]:
    """Scores by memory index from an LLM reply, and a note on what could not be used.

    Accepts ``{"0": 0.9, …}``, ``{"scores": {…}}``, ``[{"index": 0, "score": 0.9}, …]`` and
    ``[0.9, 0.1, …]``; ignores out-of-range indices, non-numbers and values outside 0–1
    (clamped when a little off, such as 1.02; dropped when absurd).
    """
    if not isinstance(parse_json(text), (dict, list)):
        return {}, "no JSON found"
    scores, bad = parse_indexed_scores(text, count, low=0.0, high=1.0, slack=0.05)
    missing = count - len(scores)
    notes = [f"{bad} unusable entries"] if bad else []
    if missing:
        notes.append(f"{missing} memories unscored")
    return scores, ", ".join(notes)
