"""``neighbour_context_op``: the turns said just before and after the best hits, recalled and scored from them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np
from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.keys import MEMORIES, QUERY_VECTOR, USER_ID, WORKSPACE_ID
from flowmem.schema.memory import Memory, MemoryType
from flowmem.scoring.stages import base_score
from flowmem.vector_store.filters import MemoryFilter
from flowmem.vector_store.neighbours import Neighbour, said_around_many

RANK = "rank"
RECALL = "recall"
CONTEXT = "context"
TURN_TYPES: tuple[MemoryType, ...] = ("conversation",)  # memories said in turns, one per message


@register_op
class NeighbourContextOp(Op):
    """Recall the turns said around the best hits and lift them toward their hit's score.

    The answer to a question is often said one turn after the turn that matches it ("What did you
    do on Saturday?" → "I went hiking"), and a question can be split over two turns; neither
    neighbour shares words with the query. For each of the ``top_n`` best memories of the types in
    ``memory_types`` (by rank score, else recall score), the ``before`` turns said just before it
    and the ``after`` said just after it in the same conversation are read from the store (see
    :func:`flowmem.vector_store.neighbours.said_around_many`: same scope, target and status; a pause over
    ``max_gap_minutes`` or another ``metadata.session`` ends the conversation). A message kept as several
    memories (split into facts) is one turn, and the hit's own turn is none of its neighbours: the store counts
    turns (:meth:`VectorStore.turns_around <flowmem.vector_store.base.VectorStore.turns_around>`), so it reads the
    turns wanted, not a guess of memories per turn.

    Why turns: a message split into facts is several memories said at one time; counted one by one they took the
    places of the turns said after it. On LoCoMo dev's summary ingest, Melanie's turn ending "Any fun plans for the
    summer?" was four memories, the question's three sibling facts were its "next turns", and Caroline's answer
    ("Researching adoption agencies…", the evidence of "What are Caroline's plans for the summer?") was never
    lifted from it.

    A neighbour's score moves part of the way from its own toward its hit's:
    ``context = own + pull × decay^(turns − 1) × (hit − own)`` when the hit scores higher, and its
    rank score becomes ``context``; one that scores higher than its hit is left alone (it is not
    lowered). ``own`` is its rank score when it is already a candidate; a neighbour the recall did
    not fetch scored below every memory it fetched, so its own starts at the weakest candidate's
    score (its cosine similarity to the query is recorded as ``recall``, for ``--explain``).
    Every lifted memory gets ``scores["context"]`` and an ``explain["context"]`` naming its hit and
    offset; the trace notes what was added (``added``) and lifted (``lifted``).
    """

    # Why the defaults: 3 hits, since the store reads around each hit are the op's cost and the best few hits are
    # where the wanted turn's neighbour sits; 1 turn before and 2 after, since an answer or a continuation
    # follows what prompted it (in a two-person chat the same speaker goes on two turns later) while
    # before a hit there is only its prompt; 30 minutes, the usual session timeout of analytics; pull
    # 0.5, halfway — an adjacent turn is as likely the wanted one as not — and halved again per turn.
    class Params(OpParams):
        top_n: int = Field(3, ge=0, description="how many of the best memories to look around")
        before: int = Field(1, ge=0, le=10, description="how many turns said before a hit to look at")
        after: int = Field(2, ge=0, le=10, description="how many turns said after a hit to look at")
        max_gap_minutes: float = Field(
            30.0, gt=0, description="a longer pause between two memories ends the conversation"
        )
        memory_types: list[MemoryType] = Field(
            default_factory=lambda: list(TURN_TYPES),
            description="which memory types have neighbours (those said in turns)",
        )
        pull: float = Field(
            0.5, ge=0, le=1, description="how far an adjacent neighbour's score moves toward its hit's (0-1)"
        )
        decay: float = Field(0.5, ge=0, le=1, description="the pull's factor for each turn further from the hit")

    params: Params
    reads = (MEMORIES, WORKSPACE_ID, USER_ID)
    optional_reads = (QUERY_VECTOR,)
    writes = (MEMORIES,)
    uses = ("vector_store",)

    async def execute(self, ctx: OpContext) -> None:
        memories = list(ctx[MEMORIES])
        p = self.params
        types = set(p.memory_types)
        hits = sorted((m for m in memories if m.memory_type in types), key=base_score, reverse=True)[: p.top_n]
        if not hits or p.before + p.after == 0:
            ctx.note("added", [])
            ctx.note("lifted", [])
            return
        flt = MemoryFilter(target=ctx[USER_ID], status="valid", memory_type=tuple(p.memory_types))
        gap = timedelta(minutes=p.max_gap_minutes)
        # Every hit's neighbouring turns in one read (the local store: one hop to its thread, one records query).
        around = await said_around_many(self.vector_store, ctx[WORKSPACE_ID], hits, flt, before=p.before,
                                        after=p.after, max_gap=gap, with_vectors=True, in_turns=True)  # fmt: skip
        pool = {m.memory_id: m for m in memories}
        # Scores before any lift: a memory lifted by one hit is lifted by another from where it started.
        own = {m.memory_id: base_score(m) for m in memories}
        floor = min(own.values(), default=0.0)
        query = ctx.get(QUERY_VECTOR)
        added: list[Memory] = []
        lifted: list[dict[str, Any]] = []
        for hit, neighbours in zip(hits, around, strict=True):
            for neighbour in neighbours:
                memory = pool.get(neighbour.memory.memory_id)
                if memory is None:
                    memory = self._newcomer(neighbour, query, floor)
                    pool[memory.memory_id] = memory
                    own[memory.memory_id] = floor
                    added.append(memory)
                change = self._lift(memory, own[memory.memory_id], hit, own[hit.memory_id], neighbour)
                if change is not None:
                    lifted.append(change)
        ctx.note("added", [m.memory_id for m in added])
        ctx.note("lifted", lifted)
        ctx[MEMORIES] = memories + added

    def _newcomer(self, neighbour: Neighbour, query: Any, floor: float) -> Memory:
        """A neighbour the recall did not fetch: its own score is the weakest candidate's (it scored below all)."""
        memory = neighbour.memory
        if query is not None and memory.vector is not None:
            memory.set_score(RECALL, float(np.dot(np.asarray(query, dtype=np.float32), memory.vector)), self.label)
        memory.set_score(RANK, floor, self.label)
        memory.explain[CONTEXT] = f"not recalled: starts at the weakest candidate's score {floor:.3f}"
        memory.vector = None  # vectors never travel into responses
        return memory

    def _lift(
        self, memory: Memory, own: float, hit: Memory, source: float, neighbour: Neighbour
    ) -> dict[str, Any] | None:
        """Move ``memory``'s rank score from ``own`` toward its hit's ``source`` score (never down)."""
        if source <= own:
            return None
        share = self.params.pull * self.params.decay ** (abs(neighbour.offset) - 1)
        score = own + share * (source - own)
        if score <= memory.scores.get(CONTEXT, float("-inf")):
            return None  # a nearer or better hit lifted it further already
        memory.set_score(CONTEXT, score, self.label)
        memory.set_score(RANK, score, self.label)
        where = "after" if neighbour.offset > 0 else "before"
        turns = abs(neighbour.offset)
        memory.explain[CONTEXT] = (
            f"said {turns} turn{'s' if turns > 1 else ''} {where} {hit.memory_id} (score {source:.3f}): "
            f"{own:.3f} → {score:.3f}"
        )
        return {"memory_id": memory.memory_id, "hit": hit.memory_id, "offset": neighbour.offset, "score": score}
