"""``fuse_rerank_op``: fuse rank, memory type and time into one explained score."""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.keys import ANSWER, EXTRACTED_TIME, MEMORIES, QUERY, QUERY_TIMES, TOP_K
from flowmem.schema.memory import Memory
from flowmem.scoring import near_miss, time_match
from flowmem.scoring.aspect import asks_about_now, tells_past_state
from flowmem.scoring.priors import prior_shift, spread
from flowmem.scoring.recency import RECENCY_RANK, changed_first, order_by_recency, restated_first, when_of
from flowmem.scoring.stages import base_score
from flowmem.timeexpr.model import ExtractedTime
from flowmem.timeexpr.query import QueryTimes

DEFAULT_TYPE_RATIOS = {"conversation": 0.5, "observation": 1.0, "obs_customized": 1.2, "insight": 2.0}


@register_op
class FuseRerankOp(Op):
    """Fuse each memory's score with its type and time, keep the best, and write the answer.

    ``final = base × type ratio × time ratio``, where ``base`` is the rank score (or the recall
    score when no ranker ran), the type ratio comes from ``fuse_ratio_dict`` (1.0 for a type it
    does not list) and the time ratio is ``fuse_time_ratio`` when the memory's time matches the
    time extracted from the query (see :func:`flowmem.scoring.time_match.time_match`), else 1.0.
    Memories whose base is below ``fuse_score_threshold`` are dropped; the rest are sorted and the
    best ``output_memory_max_count`` (or the run's ``top_k``) kept. Every factor is recorded on
    the memory with the op that produced it; dropped memories are noted in the trace (``dropped``). The answer
    has one line per memory, prefixed ``[YYYY-MM-DD HH:MM:SS weekday]`` when its time is known.

    How the type ratio is weighed (``type_ratio_mode``). A type ratio is a prior: "an insight is
    twice as likely to be what is wanted as an observation". ``multiply`` (the seed's formula) applies
    it to the base as a flat factor, which is only right if the base's differences are of the same
    order as the base. They are not: an embedder's cosines sit in a band of its own (the offline e5
    model puts nearly every memory between 0.72 and 0.83), a lexical blend or a fused recall score in
    another, so a 2× ratio outweighs any relevance difference and the type decides alone.
    ``spread`` weighs the prior against how far relevance actually spreads for this query: a ratio r
    moves a memory by ``σ · ln r`` on the base's own scale, σ being the population standard deviation
    of the bases still in the running, so ``final = max(base + σ · ln(type ratio), 0) × time ratio``
    (the shift is recorded as ``type_shift``). It is the log-odds reading of a prior over standard
    scores: an insight (2.0) gains 0.69σ over an observation, a conversation turn (0.5) loses 0.69σ;
    it breaks near-ties and no longer overrides a clear relevance lead, on any base — recall cosine,
    rank score or fused score — since σ is measured on that base, per query. With one candidate, or all
    bases equal, σ is 0 and the type changes nothing: it cannot tell the answer from the rest when
    relevance has nothing to say either way (the order is the candidates' order). A memory of one type
    only is shifted alike, so the order is the base's (LoCoMo's turns are all ``conversation``). The
    time ratio keeps multiplying: a time the question names is evidence, not a prior, and the shipped
    ``fuse_time_ratio`` is meant to win on a narrow band. The threshold applies to the raw base.

    A query that asks for a time ("when did Caroline go to the support group?", 我弟是哪天高考的; ``query_times``'s
    ``asks_when``, :mod:`flowmem.timeexpr.asks`) is answered by a memory that says when: each memory with an event
    time gains ``σ · ln when_ratio`` (``scores["when_shift"]``), the same prior weighing as ``spread``'s type ratio.

    A query about the past ("when did Nia get married?", "what was my marathon time?": not about now) is answered by
    what happened rather than what was planned: a memory said before its event's day (a plan, "getting married on 14
    June", said in May) gains ``σ · ln plan_ratio`` (``scores["plan_shift"]``, negative), since plans change and the
    memory that tells how it went is the answer when there is one.

    A query that asks for the latest or the earliest occurrence ("when did I *last* go hiking?", "the first time
    I…", 上次; ``query_times``'s recency, :mod:`flowmem.timeexpr.recency`) is answered by when, not by likeness:
    before the cut, the memories whose final score is within ``recency_margin`` σ of the best (σ: the spread of
    the finals) are put first, latest (earliest) event first, else by when they were said
    (:mod:`flowmem.scoring.recency`; ``scores["recency_rank"]``, and the trace's ``recency`` note).

    For a query about now (no word of the past: :func:`flowmem.scoring.aspect.asks_about_now`), a memory said later
    that states a change (an ending, a new value, a correction: :mod:`flowmem.scoring.change`) about what a
    better-ranked, older memory speaks of goes just above it when within ``changed_margin`` σ of it
    ("Leah left teaching!! She's a sales rep now" above "She teaches chemistry at Westbrook High"): what the write
    path did not expire still does not outrank what replaced it (``scores["changed_first"]``, ``explain``). A memory
    said later that says what an older one says of the query's subject with another value,
    in no words of change ("£8.60 an hour" after "£7.55 an hour"), goes above it when within ``restated_margin`` σ
    (``scores["restated_first"]``): a weaker sign than a stated change, so only a near tie moves. Later is when each was
    said, and of the first ten only.
    """

    class Params(OpParams):
        fuse_score_threshold: float = Field(0.1, description="drop memories whose base score is below this")
        fuse_ratio_dict: dict[str, float] = Field(
            default_factory=lambda: dict(DEFAULT_TYPE_RATIOS), description="score multiplier per memory type"
        )
        fuse_time_ratio: float = Field(2.0, ge=0, description="score multiplier when the memory's time matches")
        output_memory_max_count: int = Field(5, ge=1, description="how many memories to return")
        type_ratio_mode: Literal["multiply", "spread"] = Field(
            "multiply",
            description="multiply: the type ratio multiplies the base; spread: a ratio r adds σ·ln r to the base, "
            "σ being the spread of the candidates' bases (see the op's docstring)",
        )
        when_ratio: float = Field(
            2.0,
            ge=0,
            description="a query asking for a time ('when did…', 哪天): a prior ratio for the memories that say when "
            "their event happened (an event time), weighed as σ·ln(ratio) like spread's type ratio (1: off)",
        )
        past_state_ratio: float = Field(
            0.8,
            ge=0,
            le=1,
            description="a query about now ('which town do I live in?'): the score multiplier of a memory that tells "
            "a state as over ('I used to live in Sheffield', 我以前…; flowmem.scoring.aspect) (1: off)",
        )
        plan_ratio: float = Field(
            0.5,
            gt=0,
            description="a query about the past ('when did Nia get married?'): the prior ratio of a memory said before "
            "its event happened, a plan ('getting married on 14 June'), against one that tells what happened (1: off)",
        )
        recency_margin: float | None = Field(
            1.0,
            ge=0,
            description="a query asking for the latest/earliest ('when did I last…'): order the memories within "
            "this many σ of the best final score by when (None: off)",
        )
        changed_margin: float | None = Field(
            3.0,
            ge=0,
            description="a query about now: a memory said later that states a change about what a better-ranked one "
            "speaks of ('Leah left teaching, she's a sales rep now' below 'She teaches chemistry') goes above it, when "
            "within this many σ of it (None: off, and restated_margin with it)",
        )
        restated_margin: float = Field(
            0.5,
            ge=0,
            description="a query about now: a memory said later that says what a better-ranked one says of the "
            "query's subject with another value, in no words of change ('£8.60 an hour' after '£7.55 an hour'), goes "
            "above it when within this many σ of it",
        )
        min_spread: float = Field(
            0.02,
            ge=0,
            description="the least σ the recency order and the changed-first move use: final scores closer than "
            "this are a tie (a query with two or three candidates has no spread to measure; 0: σ as measured)",
        )

    params: Params
    reads = (MEMORIES,)
    optional_reads = (EXTRACTED_TIME, TOP_K, QUERY_TIMES, QUERY)
    writes = (MEMORIES, ANSWER)

    async def execute(self, ctx: OpContext) -> None:
        memories = list(ctx[MEMORIES])
        extracted: ExtractedTime | None = ctx.get(EXTRACTED_TIME)
        near_misses: list[dict[str, Any]] = []
        p = self.params
        limit = ctx.get(TOP_K) or p.output_memory_max_count
        passed: list[tuple[Memory, float]] = []
        for memory in memories:
            base = base_score(memory)
            if base < p.fuse_score_threshold:
                reason = f"score {base:.3f} < fuse_score_threshold {p.fuse_score_threshold}"
                near_misses.append(near_miss(memory, self.label, reason))
                continue
            passed.append((memory, base))
        sigma = spread([base for _, base in passed])
        known: QueryTimes | None = ctx.get(QUERY_TIMES)
        asks = known is not None and known.asks_when
        now = asks_about_now(ctx.get(QUERY) or "")
        kept: list[Memory] = []
        for memory, base in passed:
            type_ratio = p.fuse_ratio_dict.get(memory.memory_type, 1.0)
            matched, why = time_match(memory, extracted) if extracted is not None else (False, "no time in the query")
            time_ratio = p.fuse_time_ratio if matched else 1.0
            memory.set_score("type_ratio", type_ratio, self.label)
            if p.type_ratio_mode == "spread":
                shift = prior_shift(type_ratio, sigma, base)
                memory.set_score("type_shift", shift, self.label)
                relevance = max(base + shift, 0.0)
            else:
                relevance = base * type_ratio
            if asks and memory.event_time is not None:  # "when did…": a memory that says when is likelier the answer
                shift = prior_shift(p.when_ratio, sigma, base)
                memory.set_score("when_shift", shift, self.label)
                relevance = max(relevance + shift, 0.0)
            if not now and p.plan_ratio != 1.0 and planned(memory):
                shift = prior_shift(p.plan_ratio, sigma, base)
                memory.set_score("plan_shift", shift, self.label)
                relevance = max(relevance + shift, 0.0)
            if now and p.past_state_ratio != 1.0 and tells_past_state(memory.content):
                memory.set_score("past_state_ratio", p.past_state_ratio, self.label)
                relevance *= p.past_state_ratio
            memory.set_score("time_match", 1.0 if matched else 0.0, self.label)
            memory.set_score("time_ratio", time_ratio, self.label)
            memory.set_score("final", relevance * time_ratio, self.label)
            memory.explain["time"] = why
            kept.append(memory)
        # A tie: the later first (when is read only for a final score that more than one memory has): the same words
        # said of two days ("went climbing with Marcus") score the same.
        shared = {score for score, times in Counter(m.scores["final"] for m in kept).items() if times > 1}
        kept.sort(key=lambda m: (m.scores["final"], when_of(m) if m.scores["final"] in shared else 0.0), reverse=True)
        # A query about now is answered by what holds now: the later of two statements of its subject. One about the
        # past ("when did Caroline go to…", "what did I do for work last year?") by what was said then.
        if now and p.changed_margin is not None and (known is None or known.recency is None):
            sigma = self._final_spread(kept)
            kept = changed_first(kept, p.changed_margin * sigma, self.label)
            kept = restated_first(kept, ctx.get(QUERY) or "", p.restated_margin * sigma, self.label)
        kept = self._recency_order(ctx, kept)
        for memory in kept[limit:]:
            reason = f"final {memory.scores['final']:.3f}: beyond the best {limit}"
            if RECENCY_RANK in memory.scores:
                reason = f"recency_rank {memory.scores[RECENCY_RANK]:.0f}: beyond the first {limit} by when"
            near_misses.append(near_miss(memory, self.label, reason))
        kept = kept[:limit]
        ctx.note("time", extracted.expression if extracted is not None else None)
        ctx[MEMORIES] = kept
        ctx.note("dropped", near_misses)
        ctx[ANSWER] = "\n".join(m.display_line() for m in kept)

    def _recency_order(self, ctx: OpContext, kept: list[Memory]) -> list[Memory]:
        """``kept`` with the best ordered by when, when the query asks for the latest or the earliest."""
        known: QueryTimes | None = ctx.get(QUERY_TIMES)
        margin = self.params.recency_margin
        if known is None or known.recency is None or margin is None:
            return kept
        finals = [m.scores["final"] for m in kept]
        ordered, note = order_by_recency(kept, finals, known.recency, margin * self._final_spread(kept), self.label)
        ctx.note("recency", note)
        return ordered

    def _final_spread(self, kept: list[Memory]) -> float:
        """σ of the final scores, at least ``min_spread``: two memories a hair apart are a tie, not a ranking."""
        return max(spread([m.scores["final"] for m in kept]), self.params.min_spread)


def planned(memory: Memory) -> bool:
    """Whether ``memory`` was said before its event happened (a plan: "getting married on 14 June", said in May)."""
    said, event = memory.message_time, memory.event_time
    return said is not None and event is not None and event.date() > said.date()
