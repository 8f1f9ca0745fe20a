"""``flowmem run … --explain``: why each memory was returned, and what nearly was."""

from __future__ import annotations

from typing import Any

from flowmem.flow.response import Response
from flowmem.schema.memory import Memory
from flowmem.scoring.supersede import CHANGED_BY, DERIVED_FROM

NEAR_MISSES_SHOWN = 10
# Each memory's factors in the order the retrieval flow produces them: vector and word recall and
# their fusion (recall_fuse_op) first, then ranking and the final fusion.
FACTOR_ORDER = (
    "cosine", "time_recall", "vector_rank", "lexical", "lexical_rank", "fused", "recall", "rank", "context",
    "hop_similarity", "hop", "type_ratio", "type_shift", "time_match", "time_ratio", "final", "recency_rank",
)  # fmt: skip


def explain(response: Response) -> str:
    """Per memory: each factor with the op that produced it; then the near misses, and why."""
    lines: list[str] = []
    query_time = _note(response, "time")
    if query_time is not None:
        lines.append(f"query time: {_describe_time(query_time)}")
    recency = _note(response, "recency")  # fuse_rerank_op: a query asking for the latest / earliest
    if isinstance(recency, dict):
        lines.append(
            f"recency: {recency.get('words')!r} asks for the {recency.get('order')}: fuse_rerank_op put the "
            f"{recency.get('ordered')} memories within {recency.get('margin')}σ of the best final score "
            f"(≥ {recency.get('floor')}) first, {recency.get('order')} first by event time, else said time"
        )
    ranker = _note(response, "ranker")
    if ranker is not None:
        lines.append(f"ranker: {ranker}")
    fusion = _note(response, "fusion")  # recall_fuse_op: how the vector and word lists were merged
    if isinstance(fusion, dict):
        lines.append(
            f"recall fusion: {fusion.get('method')} of {fusion.get('vector')} by vector and {fusion.get('lexical')} "
            f"by words ({fusion.get('lexical_only')} found by words only), {fusion.get('kept')} kept"
        )
    facts = _note(response, "facts")
    if isinstance(facts, dict):
        lines.append(_facts_line(facts))
    context = _note(response, "context")
    if isinstance(context, dict):
        lines += _context_lines(context)
    if lines:
        lines.append("")
    for i, memory in enumerate(response.memories, 1):
        lines += _memory_block(i, memory)
    misses = [miss for span in _spans(response) for miss in span.notes.get("dropped", [])]
    if misses:
        lines.append(f"near misses ({len(misses)}):")
        for miss in misses[:NEAR_MISSES_SHOWN]:
            content = " ".join(str(miss["content"]).split())
            lines.append(f"  - {miss['memory_id']}  {content[:70]!r}")
            lines.append(f"      dropped by {miss['op']}: {miss['reason']}")
        if len(misses) > NEAR_MISSES_SHOWN:
            lines.append(f"  … and {len(misses) - NEAR_MISSES_SHOWN} more (see --json)")
    return "\n".join(lines).rstrip()


def _memory_block(index: int, memory: Memory) -> list[str]:
    block = [f"{index}. {memory.display_line()}", f"   id {memory.memory_id} · {memory.memory_type}"]
    link = provenance(memory)
    if link:
        block.append(f"   {link}")
    for name in sorted(memory.scores, key=lambda n: FACTOR_ORDER.index(n) if n in FACTOR_ORDER else 99):
        value = memory.scores[name]
        source = memory.score_sources.get(name, "?")
        why = ""
        if name == "type_ratio":
            why = f" ({memory.memory_type})"
        elif name == "type_shift":  # fuse_rerank_op's type_ratio_mode: spread
            why = " (σ · ln type_ratio)"
        elif name == "time_match":
            why = f" ({memory.explain.get('time', '')})"
        elif name in memory.explain:  # an op's reason for its own factor (neighbour_context_op, second_hop_op)
            why = f" ({memory.explain[name]})"
        block.append(f"   {name:<10} {value:>8.4f}   by {source}{why}")
    return [*block, ""]


def provenance(memory: Memory) -> str:
    """Where ``memory`` comes from: the messages it was said in, and the memory its words were derived from when a
    change wrote a new value into an older statement (:mod:`flowmem.scoring.supersede`) — the turn behind a fact."""
    parts = []
    if memory.source:
        shown = ", ".join(memory.source[:3]) + (f" (+{len(memory.source) - 3})" if len(memory.source) > 3 else "")
        parts.append(f"said in {shown}")
    derived, changed = memory.metadata.get(DERIVED_FROM), memory.metadata.get(CHANGED_BY)
    if derived:
        parts.append(f"derived from {derived}" + (f", changed by {changed}" if changed else ""))
    return " · ".join(parts)


def _facts_line(note: dict[str, Any]) -> str:
    """The facts block's selection (``facts_block_op``'s ``facts`` note) in one line."""
    return (
        f"facts: {note.get('kept')} kept of {note.get('found')} found ({note.get('select')}; "
        f"{note.get('duplicates_merged', 0)} exact duplicates merged; condensed: {note.get('condensed')})"
    )


def _context_lines(note: dict[str, Any]) -> list[str]:
    """What ``context_assemble_op`` put into the context and what it cut, block by block (its ``context`` note)."""
    where = "a system message" if note.get("insert_method") == "system" else "the user message"
    exact = "" if note.get("exact", True) else ", estimated"
    lines = [
        f"context: {note.get('tokens')} of {note.get('token_limit')} tokens ({note.get('tokenizer')}{exact}), "
        f"blocks in {where}"
    ]
    cut = " (cut to fit)" if note.get("query_truncated") else ""
    lines.append(f"  new message: {note.get('query_tokens')} tokens{cut}")
    history = note.get("history") or {}
    lines.append(
        f"  history: {history.get('why', '')} ({history.get('tokens')} tokens; "
        f"{history.get('reserved')} reserved for it first)"
    )
    lines.append("  blocks, by priority:")
    for block in sorted(note.get("blocks") or [], key=lambda b: b.get("priority", 0)):
        status = block.get("status", "")
        tokens = f"{block.get('tokens')}/{block.get('full_tokens')}" if status != "empty" else "-"
        name, why = block.get("name", ""), block.get("why", "")
        lines.append(f"    {block.get('priority')} {name:<10} {status:<9} {tokens:>9} tokens  {why}")
    lines += [f"  note: {text}" for text in note.get("notes") or []]
    return lines


def _spans(response: Response) -> list[Any]:
    return sorted(response.trace.spans, key=lambda s: s.position) if response.trace else []


def _note(response: Response, key: str) -> Any:
    for span in _spans(response):
        if key in span.notes:
            return span.notes[key]
    return None


def _describe_time(value: Any) -> str:
    if not isinstance(value, dict):
        return str(value)
    parts = ", ".join(f"{k}={value[k]}" for k in ("year", "month", "day", "week", "weekday", "hour") if k in value)
    start, end = value.get("start"), value.get("end")
    span = f"{start} … {end}" if start and end else ""
    source = value.get("source", "")
    expression = value.get("expression", "")
    return f"{expression!r} → {span} ({value.get('granularity', '')}; {parts}; from {source})"
