"""``info_filter_op``: which of the user's messages carry personal information."""

from __future__ import annotations

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import INFO_MESSAGES, MESSAGES, SKIPPED_MESSAGES, USER_ID
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_indexed_scores
from flowmem.schema.actions import ALREADY_MEMORIZED, SkippedMessage
from flowmem.schema.memory import Message
from flowmem.scoring.echo import restates
from flowmem.scoring.info import info_score, noise_kind
from flowmem.scoring.restated import RESTATES, as_said_by_user


@register_op
class InfoFilterOp(Op):
    """Keep the user's messages that carry personal information, scored 0–3.

    Only messages of the user (:meth:`~flowmem.schema.memory.Message.is_users`: role ``user``, name the
    ``user_id`` or empty), not yet memorized and not empty are considered. With an LLM, it scores them
    (0 none … 3 a specific personal fact); a message its reply leaves unscored gets the offline score.
    Without one, documented heuristics score them (:mod:`flowmem.scoring.info`). Messages scoring at least
    ``info_score_threshold`` are kept, with their score in ``metadata["info_score"]``; a message scored by
    the heuristics is held to ``offline_score_threshold`` when that is set (their 0-3 is coarser than an
    LLM's: a first-person statement is 1, a word from a fixed list of life topics adds 1).

    Every message left out is in ``skipped_messages`` with its reason (nothing is dropped silently):
    ``already memorized``, ``not the user's (name 'bob')``, ``not the user's (role 'assistant')``, ``empty``,
    or noise: ``noise: pleasantry``, ``noise: question``, ``noise: no first-person statement`` (scored 0 by the
    heuristics, :func:`~flowmem.scoring.info.noise_kind`), ``noise: scored 1 of 3 (keeps 2+)`` (by the LLM:
    ``… of 3 by the LLM …``).
    """

    class Params(OpParams):
        keep_restated: bool = Field(
            True,
            description="keep the assistant's replies that restate what the user just said ('Noted: Pepper now eats "
            "Hillside kibble, half a cup twice a day'; flowmem.scoring.echo) as the user's record, so a correction "
            "reaches them",
        )
        info_score_threshold: int = Field(2, ge=0, le=3, description="keep messages scoring at least this (0-3)")
        offline_score_threshold: int | None = Field(
            None, ge=0, le=3, description="the same for messages the offline heuristics scored (None: the above)"
        )

    params: Params
    reads = (MESSAGES, USER_ID)
    writes = (INFO_MESSAGES, SKIPPED_MESSAGES)
    uses = ("llm",)
    degradation = "scores the messages with the offline heuristics"

    async def execute(self, ctx: OpContext) -> None:
        candidates, skipped = self._candidates(ctx)
        scores = [_offline_score(m) for m in candidates]
        by_llm: set[int] = set()
        if candidates and self.llm.available:
            scores, by_llm = await self._llm_scores(ctx, candidates, scores)
            ctx.note("scorer", "llm")
        else:
            ctx.note("scorer", "heuristics (no LLM)")
        self._keep(ctx, candidates, skipped, scores, by_llm)

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        candidates, skipped = self._candidates(ctx)
        self._keep(ctx, candidates, skipped, [_offline_score(m) for m in candidates], set())

    def _candidates(self, ctx: OpContext) -> tuple[list[Message], list[SkippedMessage]]:
        """The messages to score (the user's, and the assistant's replies that restate them), and the others with
        why they are not."""
        user = ctx[USER_ID]
        messages: list[Message] = ctx[MESSAGES]
        candidates: list[Message] = []
        skipped: list[SkippedMessage] = []
        said: list[Message] = []  # the user's messages so far in the batch
        for m in messages:
            if m.is_users(user):
                said.append(m)
            if m.memorized:
                skipped.append(SkippedMessage(message_id=m.message_id, reason=ALREADY_MEMORIZED))
            elif not m.is_users(user) and self._restates(m, said):
                candidates.append(m.model_copy(update={"metadata": {**m.metadata, RESTATES: said[-1].message_id}}))
            elif not m.is_users(user):
                skipped.append(SkippedMessage.not_users(m))
            elif not m.content.strip():
                skipped.append(SkippedMessage(message_id=m.message_id, reason="empty"))
            else:
                candidates.append(m)
        return candidates, skipped

    def _restates(self, message: Message, said: list[Message]) -> bool:
        """Whether ``message``, the assistant's, restates the user's last messages before it."""
        if not self.params.keep_restated or message.role != "assistant" or not said:
            return False
        return restates(message.content, [m.content for m in said[-2:]])

    def _keep(
        self, ctx: OpContext, candidates: list[Message], skipped: list[SkippedMessage], scores: list[int],
        by_llm: set[int],
    ) -> None:  # fmt: skip
        p = self.params
        offline = p.info_score_threshold if p.offline_score_threshold is None else p.offline_score_threshold
        kept = []
        for i, (message, score) in enumerate(zip(candidates, scores, strict=True)):
            threshold = p.info_score_threshold if i in by_llm else offline
            if score >= threshold or _restated_by(message):  # a restatement is kept as what it restates
                kept.append(message.model_copy(update={"metadata": {**message.metadata, "info_score": score}}))
            else:
                why = _noise(message, score, threshold, by_llm=i in by_llm)
                skipped.append(SkippedMessage(message_id=message.message_id, reason=why))
        restated = sum(_restated_by(m) for m in kept)
        ctx.note("kept", f"{len(kept)} of {len(candidates)} messages ({restated} the assistant's restating the user)")
        ctx[INFO_MESSAGES] = kept
        ctx[SKIPPED_MESSAGES] = skipped

    async def _llm_scores(
        self, ctx: OpContext, candidates: list[Message], fallback: list[int]
    ) -> tuple[list[int], set[int]]:
        """The scores (the LLM's where it gave one, else ``fallback``'s) and the indices the LLM scored."""
        prompt = load_prompt("info_filter")
        listing = "\n".join(f"{i}. {' '.join(m.content.split())}" for i, m in enumerate(candidates))
        reply = await ask(self.llm, ctx, prompt.system, prompt.user.format(user=ctx[USER_ID], messages=listing),
                          json_mode=True)  # fmt: skip
        scores = list(fallback)
        parsed = _scores(reply.text, len(candidates))
        for i, score in parsed.items():
            scores[i] = score
        if len(parsed) < len(candidates):
            ctx.warn(f"LLM scored {len(parsed)} of {len(candidates)} messages; the rest got the offline score")
        return scores, set(parsed)


def _restated_by(message: Message) -> bool:
    return bool(message.metadata.get(RESTATES))


def _offline_score(message: Message) -> int:
    """The heuristics' 0-3, of a restatement as the user would say it ("you're vegetarian": "I'm vegetarian")."""
    return info_score(as_said_by_user(message.content) if _restated_by(message) else message.content)


def _noise(message: Message, score: int, threshold: int, *, by_llm: bool) -> str:
    """Why a scored message is not kept: what it is when the heuristics found nothing, else its score."""
    if by_llm:
        return f"noise: scored {score} of 3 by the LLM (keeps {threshold}+)"
    if score == 0:
        return f"noise: {noise_kind(message.content)}"
    return f"noise: scored {score} of 3 (keeps {threshold}+)"


def _scores(text: str, count: int) -> dict[int, int]:
    """The LLM's 0-3 scores by message index; a fractional score is rounded (the prompt asks for integers)."""
    scores, _ = parse_indexed_scores(text, count, low=0, high=3, slack=0.5)
    return {index: round(score) for index, score in scores.items()}
