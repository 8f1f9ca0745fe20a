"""``speaker_match_op``: what the person a question names said, ahead of what was said to them."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.keys import MEMORIES, QUERY
from flowmem.schema.memory import Memory
from flowmem.scoring.stages import RANK, base_score

SPEAKER_RATIO = "speaker_ratio"


@register_op
class SpeakerMatchOp(Op):
    """Prefer the memories said by the participant the query names.

    In a conversation of several people, a question about one of them ("What books has Melanie
    read?", "Where did Jon travel?") is answered by what that person said — "I loved reading
    Charlotte's Web" — far more often than by what others said to them, and the embedding of a
    turn barely carries who said it. A memory's speaker is ``metadata[speaker_key]`` (the LoCoMo
    reader and conversation imports record it); the speakers are those of the candidates. When the
    query names some of them (a whole-word, case-insensitive match; a plain substring for names
    written without spaces, such as Chinese), and not all, the memories said by a named speaker
    get ``rank = base × ratio``; the others are left as they are. A query naming no speaker, or
    every speaker, changes nothing. Each changed memory records ``scores["speaker_ratio"]`` and an
    ``explain`` line; the trace notes the speakers named (``speakers``).
    """

    # Why 1.2: a prior, not a filter — what the other person said stays a candidate (the question may be
    # answered by them: "What did Caroline tell Melanie about ...?"), but among candidates of similar
    # relevance the named speaker's own words come first. On LoCoMo dev, 1.1, 1.25 and 1.5 all raised
    # multi-hop recall (+0.06-0.07 R@10) and all cost single-hop a little (-0.01, -0.03, -0.04): the
    # stronger the prior, the more a relevant turn of the other speaker is pushed out; 1.2 stays on the mild side.
    class Params(OpParams):
        ratio: float = Field(1.2, ge=1.0, le=10.0, description="score multiplier for memories said by a named speaker")
        speaker_key: str = Field("speaker", min_length=1, description="the metadata key that holds who said a memory")

    params: Params
    reads = (QUERY, MEMORIES)
    writes = (MEMORIES,)

    async def execute(self, ctx: OpContext) -> None:
        memories = list(ctx[MEMORIES])
        speakers = {speaker_of(m, self.params.speaker_key) for m in memories} - {""}
        named = {s for s in speakers if names(ctx[QUERY], s)}
        ctx.note("speakers", sorted(named))
        if named and named != speakers:
            for memory in memories:
                if speaker_of(memory, self.params.speaker_key) in named:
                    memory.set_score(SPEAKER_RATIO, self.params.ratio, self.label)
                    memory.set_score(RANK, base_score(memory) * self.params.ratio, self.label)
                    memory.explain[SPEAKER_RATIO] = "said by the person the query names"
            memories.sort(key=base_score, reverse=True)
        ctx[MEMORIES] = memories


def speaker_of(memory: Memory, key: str) -> str:
    value: Any = memory.metadata.get(key, "")
    return value.strip() if isinstance(value, str) else ""


def names(query: str, speaker: str) -> bool:
    """Whether ``query`` names ``speaker``: as a whole word, or inside text written without spaces."""
    if not speaker.isascii():
        return speaker.casefold() in query.casefold()
    return re.search(rf"(?<!\w){re.escape(speaker)}(?!\w)", query, flags=re.IGNORECASE) is not None
