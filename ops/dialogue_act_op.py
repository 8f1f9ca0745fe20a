"""``dialogue_act_op``: turns that tell something ahead of turns that ask or talk about the listener."""

from __future__ import annotations

from collections import Counter

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.keys import MEMORIES
from flowmem.schema.memory import Memory, MemoryType
from flowmem.scoring.acts import dialogue_act
from flowmem.scoring.priors import prior_shift, spread
from flowmem.scoring.stages import RANK, base_score

DIALOGUE_ACT = "dialogue_act"
SHIFT = "dialogue_act_shift"
TURN_TYPES: tuple[MemoryType, ...] = ("conversation",)  # memories said in turns, one per message


@register_op
class DialogueActOp(Op):
    """Rank conversation turns that ask, or talk about the listener, below turns that tell.

    What a person did, owns or thinks is told by that person, in the first person ("I signed up for
    a pottery class", "we went camping at the beach"). A turn that only asks ("Cool! What did it
    look like?") states nothing, and a turn that speaks mostly in the second person ("You're doing
    something amazing! Your kids are lucky") is about the listener; both react to news rather than
    tell it. Short generic reactions are also near many questions in embedding space, so they fill
    the top of a ranking. On the LoCoMo dev split, 0.6 % of evidence turns only ask (6 % of all
    turns do) and 11 % speak mostly to the listener (33 % of all turns): the prior's direction
    holds by a factor of 3 to 10, across every question category.

    Each memory of ``memory_types`` gets a dialogue act from its text alone (a leading
    ``"<speaker>: "`` is skipped): ``question`` — at least one sentence is a question and every
    other sentence is a short interjection of at most three words; ``addressed`` — more second-
    than first-person pronouns; ``statement`` — the rest. A ``question`` or ``addressed`` turn's
    rank moves by ``σ · ln ratio`` (σ: the population standard deviation of the candidates' base
    scores, :mod:`flowmem.scoring.priors`), the same prior-against-spread rule as
    ``fuse_rerank_op``'s type ratio: it breaks near-ties between a reaction and a statement and
    does not override a clear relevance lead. A question stays a hit for ``neighbour_context_op``
    when that op runs first: the turn it prompted is the likely answer. Each moved memory records
    ``scores["dialogue_act_shift"]`` and an ``explain`` line; the trace notes how many turns had
    each act (``acts``) and which moved (``moved``). English and Chinese pronouns are known.
    """

    # Why 0.5: a prior of the same strength as the seed's type ratios (conversation 0.5 against an
    # observation's 1.0) — on the σ scale a shift of -0.69σ — mild against the measured 3-10x. On the LoCoMo
    # dev split 0.33, 0.5 and 0.8 all raised multi-hop recall and none lowered a category's R@10, so the value
    # is not the point; 0.5 sits in the middle.
    class Params(OpParams):
        ratio: float = Field(
            0.5, gt=0, le=1, description="prior odds of a question or listener-addressed turn against a statement"
        )
        memory_types: list[MemoryType] = Field(
            default_factory=lambda: list(TURN_TYPES),
            description="which memory types are turns of a conversation (others are left alone)",
        )
        speaker_key: str = Field(
            "speaker", min_length=1, description="the metadata key naming a turn's speaker (its prefix is skipped)"
        )

    params: Params
    reads = (MEMORIES,)
    writes = (MEMORIES,)

    async def execute(self, ctx: OpContext) -> None:
        memories = list(ctx[MEMORIES])
        p = self.params
        types = set(p.memory_types)
        sigma = spread([base_score(m) for m in memories])
        acts: Counter[str] = Counter()
        moved: list[str] = []
        for memory in memories:
            if memory.memory_type not in types:
                continue
            act = dialogue_act(_spoken(memory, p.speaker_key))
            acts[act] += 1
            if act == "statement" or sigma == 0.0:
                continue
            base = base_score(memory)
            shift = prior_shift(p.ratio, sigma, base)
            memory.set_score(SHIFT, shift, self.label)
            memory.set_score(RANK, base + shift, self.label)
            why = "only asks: states nothing" if act == "question" else "speaks mostly to the listener"
            memory.explain[SHIFT] = f"{why} (σ · ln {p.ratio:g} = {shift:+.3f})"
            moved.append(memory.memory_id)
        ctx.note("acts", dict(acts))
        ctx.note("moved", moved)
        memories.sort(key=base_score, reverse=True)
        ctx[MEMORIES] = memories


def _spoken(memory: Memory, speaker_key: str) -> str:
    """The turn's words without a leading ``"<speaker>: "`` (LoCoMo-style turns carry their speaker in the text)."""
    speaker = memory.metadata.get(speaker_key)
    text = memory.content
    if isinstance(speaker, str) and speaker and text.startswith(f"{speaker}:"):
        return text[len(speaker) + 1 :].lstrip()
    return text
