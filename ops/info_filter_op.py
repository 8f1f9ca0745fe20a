"""``info_filter_op``: which of the user's messages carry personal information."""

from __future__ import annotations

from pydantic import Field

from flowmem.context import OpContext
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_indexed_scores
from flowmem.op import Op, OpParams, register_op
from flowmem.prompts import load_prompt
from flowmem.schema.memory import Message
from flowmem.scoring.info import info_score


@register_op
class InfoFilterOp(Op):
    """Keep the user's messages that carry personal information, scored 0–3.

    Only messages from the user (role ``user``, name = ``user_id`` or empty) and not yet memorized
    are considered. With an LLM, it scores them (0 none … 3 a specific personal fact); a message its
    reply leaves unscored gets the offline score. Without one, documented heuristics score them
    (:mod:`flowmem.scoring.info`). Messages scoring at least ``info_score_threshold`` are kept, with
    their score in ``metadata["info_score"]``; a message scored by the heuristics is held to
    ``offline_score_threshold`` when that is set (their 0-3 is coarser than an LLM's: a first-person
    statement is 1, a word from a fixed list of life topics adds 1).
    """

    class Params(OpParams):
        info_score_threshold: int = Field(2, ge=0, le=3, description="keep messages scoring at least this (0-3)")
        offline_score_threshold: int | None = Field(
            None, ge=0, le=3, description="the same for messages the offline heuristics scored (None: the above)"
        )

    params: Params
    reads = ("messages", "user_id")
    writes = ("info_messages",)
    uses = ("llm",)
    degradation = "scores the messages with the offline heuristics"

    async def execute(self, ctx: OpContext) -> None:
        candidates = self._candidates(ctx)
        scores = [info_score(m.content) for m in candidates]
        by_llm: set[int] = set()
        if candidates and self.llm.available:
            scores, by_llm = await self._llm_scores(ctx, candidates, scores)
            ctx.note("scorer", "llm")
        else:
            ctx.note("scorer", "heuristics (no LLM)")
        self._keep(ctx, candidates, scores, by_llm)

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        candidates = self._candidates(ctx)
        self._keep(ctx, candidates, [info_score(m.content) for m in candidates], set())

    def _candidates(self, ctx: OpContext) -> list[Message]:
        user = str(ctx["user_id"]).lower()
        messages: list[Message] = ctx["messages"]
        return [
            m
            for m in messages
            if m.role == "user" and not m.memorized and m.name.lower() in ("", user) and m.content.strip()
        ]

    def _keep(self, ctx: OpContext, candidates: list[Message], scores: list[int], by_llm: set[int]) -> None:
        p = self.params
        offline = p.info_score_threshold if p.offline_score_threshold is None else p.offline_score_threshold
        kept = []
        for i, (message, score) in enumerate(zip(candidates, scores, strict=True)):
            if score >= (p.info_score_threshold if i in by_llm else offline):
                kept.append(message.model_copy(update={"metadata": {**message.metadata, "info_score": score}}))
        ctx.note("kept", f"{len(kept)} of {len(candidates)} user messages")
        ctx["info_messages"] = kept

    async def _llm_scores(
        self, ctx: OpContext, candidates: list[Message], fallback: list[int]
    ) -> tuple[list[int], set[int]]:
        """The scores (the LLM's where it gave one, else ``fallback``'s) and the indices the LLM scored."""
        prompt = load_prompt("info_filter")
        listing = "\n".join(f"{i}. {' '.join(m.content.split())}" for i, m in enumerate(candidates))
        reply = await ask(self.llm, ctx, prompt.system, prompt.user.format(user=ctx["user_id"], messages=listing),
                          json_mode=True)  # fmt: skip
        scores = list(fallback)
        parsed = _scores(reply.text, len(candidates))
        for i, score in parsed.items():
            scores[i] = score
        if len(parsed) < len(candidates):
            ctx.warn(f"LLM scored {len(parsed)} of {len(candidates)} messages; the rest got the offline score")
        return scores, set(parsed)


def _scores(text: str, count: int) -> dict[int, int]:
    """The LLM's 0-3 scores by message index; a fractional score is rounded (the prompt asks for integers)."""
    scores, _ = parse_indexed_scores(text, count, low=0, high=3, slack=0.5)
    return {index: round(score) for index, score in scores.items()}
