"""The score stages the retrieval ops hand on, the one rule for which of them is a memory's base score, and the
mark of a memory recalled for the time the query names."""

from __future__ import annotations

from flowmem.schema.memory import Memory

RECALL = "recall"  # set by recall (cosine similarity, or the fused recall score)
RANK = "rank"  # set by ranking and re-scoring ops (semantic_rank_op, neighbour_context_op, ...)
# 1.0 when recall fetched the memory for the time the query names (retrieve_memory_op's time_recall_k): found
# for when it was said or happens, not for its wording, so a cut by wording (semantic_rank_op) must not judge it.
TIME_RECALL = "time_recall"


def base_score(memory: Memory) -> float:
    """The score later ops start from: the rank score when an op ranked the memory, else its recall score."""
    return memory.scores.get(RANK, memory.scores.get(RECALL, 0.0))


def time_recalled(memory: Memory) -> bool:
    """Whether recall fetched the memory for the time the query names (``scores["time_recall"]``)."""
    return memory.scores.get(TIME_RECALL, 0.0) > 0
