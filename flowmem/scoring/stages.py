"""The score stages the retrieval ops hand on, and the one rule for which of them is a memory's base score."""

from __future__ import annotations

from flowmem.schema.memory import Memory

RECALL = "recall"  # set by recall (cosine similarity, or the fused recall score)
RANK = "rank"  # set by ranking and re-scoring ops (semantic_rank_op, neighbour_context_op, ...)


def base_score(memory: Memory) -> float:
    """The score later ops start from: the rank score when an op ranked the memory, else its recall score."""
    return memory.scores.get(RANK, memory.scores.get(RECALL, 0.0))
