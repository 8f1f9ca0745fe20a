"""``second_hop_op``: a second recall, driven by what the first one found (multi-hop questions)."""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from pydantic import Field

from flowmem.flow.context import OpContext, describe_error
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import MEMORIES, QUERY, QUERY_VECTOR, USER_ID, WORKSPACE_ID
from flowmem.llm.calls import ask
from flowmem.schema.memory import Memory
from flowmem.scoring.lexical import words
from flowmem.scoring.stages import base_score
from flowmem.vector_store.filters import MemoryFilter

RANK = "rank"
RECALL = "recall"
HOP = "hop"
NONE_REPLY = "none"


def bridge_words(query: str, hits: list[Memory], pool: list[Memory], limit: int) -> list[str]:
    """The words of ``hits`` that the query lacks, most specific first: rarest among the ``pool``'s memories.

    A name, place or thing the best memories mention but the question does not ("my mentor" →
    "Sarah") is what a second hop should look for; a word most candidates share (the speaker's
    name, "really") says nothing specific, so rarity in the candidates ranks them (idf). Ties go to
    the word the better hit mentions first.
    """
    asked = words(query)
    bags = [words(f"{m.content} {' '.join(m.keywords)}") for m in pool]
    order: dict[str, int] = {}
    for hit in hits:
        text = f"{hit.content} {' '.join(hit.keywords)}".lower()
        for word in sorted(words(text) - asked, key=text.find):
            order.setdefault(word, len(order))

    def specificity(word: str) -> float:
        return math.log(1 + len(bags) / (1 + sum(1 for bag in bags if word in bag)))

    return sorted(order, key=lambda w: (-specificity(w), order[w]))[:limit]


@register_op
class SecondHopOp(Op):
    """Search again with what the best memories name, and merge the results on the candidates' scale.

    Multi-hop questions need a fact the first memories only point to ("What did my mentor advise?"
    finds "my mentor Sarah"; the advice never says "mentor"). The second query is the LLM's
    follow-up query when an LLM is configured and ``use_llm`` is on (a reply of ``NONE`` — the first
    memories answer it — means no second hop; a failed call falls back to the offline query, with a
    warning). Offline (``offline``), it is either the query plus the ``max_terms`` words of the
    ``top_n`` best memories the query lacks, rarest among the candidates first (names, places,
    things; see :func:`bridge_words`; one embedding), or the query vector moved toward those
    memories' vectors (Rocchio's relevance feedback; no embedding).

    Its ``top_k`` results are merged on the candidates' own scale: the second query's similarities,
    min-max normalised over its results (0 the weakest, 1 the best), place each result between the
    weakest candidate's score and the best's, ``pull`` of the way at most:
    ``hop = floor + pull × normalised × (best − floor)`` (with ``pull`` 1.0, plain min-max fusion of
    the two lists onto the candidates' range). A new memory gets ``hop`` as its rank
    score; a candidate is lifted to it when higher (never lowered). Each gets ``scores["hop"]`` and
    ``scores["hop_similarity"]``, and ``explain["hop"]``; the trace notes the second query
    (``second_query``, ``source``: llm, words or vectors), the memories added and those lifted.
    """

    class Params(OpParams):
        top_n: int = Field(3, ge=1, description="how many of the best memories the second query is built from")
        max_terms: int = Field(5, ge=1, description="offline: how many of their words are added to the query")
        top_k: int = Field(10, ge=1, le=1000, description="how many memories the second search fetches")
        pull: float = Field(
            1.0, ge=0, le=1, description="how far toward the best candidate's score the best second-hop result goes"
        )
        use_llm: bool = Field(True, description="ask the configured LLM for the follow-up query (offline without one)")
        offline: Literal["words", "vectors"] = Field(
            "words",
            description="without the LLM: search with the query plus the hits' rarest words (one embedding), or with "
            "the query vector moved toward the hits' vectors (Rocchio feedback, no embedding)",
        )
        feedback_weight: float = Field(
            0.75, ge=0, description="vectors: the hits' mean vector's weight beside the query's 1.0 (Rocchio's beta)"
        )

    params: Params
    reads = (QUERY, MEMORIES, WORKSPACE_ID, USER_ID)
    optional_reads = (QUERY_VECTOR,)
    writes = (MEMORIES,)
    uses = ("llm", "embedding_model", "vector_store")

    async def execute(self, ctx: OpContext) -> None:
        memories = list(ctx[MEMORIES])
        p = self.params
        if not memories:
            ctx.note("second_query", None)
            return
        query = ctx[QUERY]
        hits = sorted(memories, key=base_score, reverse=True)[: p.top_n]
        second, source = await self._second_query(ctx, query, hits, memories)
        ctx.note("second_query", second)
        ctx.note("source", source)
        if not second:
            return
        if source == "vectors":
            vector = await self._feedback_vector(ctx, query, hits)
        else:
            vector = await self.embedding_model.embed_one(second, kind="query")
        flt = MemoryFilter(target=ctx[USER_ID], status="valid")
        found = await self.vector_store.search(ctx[WORKSPACE_ID], vector, p.top_k, flt)
        added, lifted = self._merge(memories, found, second)
        ctx.note("added", [m.memory_id for m in added])
        ctx.note("lifted", lifted)
        ctx[MEMORIES] = memories + added

    async def _second_query(
        self, ctx: OpContext, query: str, hits: list[Memory], pool: list[Memory]
    ) -> tuple[str, str]:
        """The second query and where it came from (``llm``, ``words`` or ``vectors``); ``""``: no second hop."""
        if self.params.use_llm and self.llm.available:
            listing = "\n".join(f"{i + 1}. {' '.join(m.content.split())}" for i, m in enumerate(hits))
            prompt = load_prompt("second_hop")
            try:
                reply = await ask(self.llm, ctx, prompt.system, prompt.user.format(query=query, memories=listing))
            except Exception as exc:  # any failure of the call: the offline query still gives a second hop
                instead = "the hits' words" if self.params.offline == "words" else "the hits' vectors"
                ctx.warn(f"LLM follow-up query failed ({describe_error(exc)}); searched with {instead} instead")
            else:
                text = " ".join(reply.text.strip().strip('"').split())
                if text and text.lower().rstrip(".") != NONE_REPLY:
                    return text, "llm"
                if text:
                    return "", "llm"  # the LLM says the first memories answer it: no second hop
        if self.params.offline == "vectors":
            return f"{query} (moved toward {', '.join(m.memory_id for m in hits)})", "vectors"
        terms = bridge_words(query, hits, pool, self.params.max_terms)
        return (f"{query} {' '.join(terms)}" if terms else ""), "words"

    async def _feedback_vector(self, ctx: OpContext, query: str, hits: list[Memory]) -> Any:
        """Rocchio's relevance feedback: ``q + β × mean(hit vectors)`` (normalised by the store's search)."""
        vector = ctx.get(QUERY_VECTOR)
        if vector is None:
            vector = await self.embedding_model.embed_one(query, kind="query")
        stored = await self.vector_store.get(ctx[WORKSPACE_ID], [m.memory_id for m in hits], with_vectors=True)
        rows = [m.vector for m in stored if m.vector is not None]
        if not rows:
            return vector
        return np.asarray(vector, dtype=np.float32) + self.params.feedback_weight * np.mean(rows, axis=0)

    def _merge(self, memories: list[Memory], found: list[Memory], second: str) -> tuple[list[Memory], list[str]]:
        """Place the second search's results on the candidates' scale; new ones are returned, lifted ones named."""
        bases = [base_score(m) for m in memories]
        floor, best = min(bases), max(bases)
        similarities = [m.scores.pop("similarity", 0.0) for m in found]
        low, high = (min(similarities), max(similarities)) if similarities else (0.0, 0.0)
        pool = {m.memory_id: m for m in memories}
        added: list[Memory] = []
        lifted: list[str] = []
        for result, similarity in zip(found, similarities, strict=True):
            share = (similarity - low) / (high - low) if high > low else 1.0
            hop = floor + self.params.pull * share * (best - floor)
            why = (
                f"second hop: similarity {similarity:.3f} to '{second}' places it {share:.2f} × pull "
                f"{self.params.pull:g} of the way from the weakest candidate ({floor:.3f}) to the best ({best:.3f})"
            )
            memory = pool.get(result.memory_id)
            if memory is None:
                memory = result
                added.append(memory)
            elif hop > base_score(memory):
                lifted.append(memory.memory_id)
            else:
                memory.set_score("hop_similarity", similarity, self.label)
                memory.explain[HOP] = f"{why}: {hop:.3f}, not above its own score, which it keeps"
                continue
            memory.set_score("hop_similarity", similarity, self.label)
            memory.set_score(HOP, hop, self.label)
            memory.set_score(RANK, hop, self.label)
            memory.explain[HOP] = f"{why}: {hop:.3f}"
        return added, lifted
