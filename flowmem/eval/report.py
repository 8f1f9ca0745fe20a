"""Evidence recall@k, latency and LLM cost of an evaluation run; JSON and markdown, side by side."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from flowmem.eval.locomo import CATEGORIES
from flowmem.eval.runner import QuestionResult, RunResult

MISSING_EXAMPLES = 10  # evidence ids naming no turn, shown in the report (all are counted)


def recall_at(result: QuestionResult, k: int) -> float:
    if not result.evidence:
        return 0.0
    top = set(result.retrieved[:k])
    return sum(1 for e in result.evidence if e in top) / len(result.evidence)


def summarize(run: RunResult, ks: Sequence[int]) -> dict[str, Any]:
    """Recall@k overall and per category (questions with evidence only), latency, LLM use."""
    scored = [q for q in run.questions if q.evidence]
    latencies = [q.latency_ms for q in run.questions]

    def recalls(questions: list[QuestionResult]) -> dict[str, float]:
        if not questions:
            return {f"R@{k}": 0.0 for k in ks}
        return {f"R@{k}": round(statistics.fmean(recall_at(q, k) for q in questions), 4) for k in ks}

    per_category = {}
    for number, name in CATEGORIES.items():
        questions = [q for q in scored if q.category == number]
        per_category[f"{number}-{name}"] = {"n": len(questions), **recalls(questions)}
    cuts = statistics.quantiles(latencies, n=100, method="inclusive") if len(latencies) > 1 else latencies * 99
    return {
        "label": run.spec.label,
        "flow": run.spec.flow,
        "overrides": list(run.spec.overrides),
        "ingest": run.spec.ingest,
        "questions": len(run.questions),
        "questions_with_evidence": len(scored),
        "missing_evidence_ids": len(run.missing_evidence),
        "missing_evidence_examples": [
            {"sample_id": sample, "question": question, "evidence": evidence}
            for sample, question, evidence in run.missing_evidence[:MISSING_EXAMPLES]
        ],
        "overall": recalls(scored),
        "per_category": per_category,
        "latency_ms": {"p50": round(cuts[49], 2), "p95": round(cuts[94], 2)} if cuts else {},
        "ingest_seconds": round(run.ingest_seconds, 2),
        "llm_calls": sum(q.llm_calls for q in run.questions),
        "tokens": sum(q.tokens for q in run.questions),
        "warnings": run.warnings,
    }


def markdown(summaries: Sequence[dict[str, Any]], ks: Sequence[int]) -> str:
    """One table: a row per category (and overall), a column group per run, and the difference of two."""
    heads = [f"R@{k}" for k in ks]
    columns = ["category", "n"]
    for summary in summaries:
        columns += [f"{summary['label']} {h}" for h in heads]
    if len(summaries) == 2:
        columns += [f"Δ {h}" for h in heads]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    rows = [("overall", summaries[0]["questions_with_evidence"], [s["overall"] for s in summaries])]
    for name in summaries[0]["per_category"]:
        rows.append((name, summaries[0]["per_category"][name]["n"], [s["per_category"][name] for s in summaries]))
    for name, count, values in rows:
        cells = [name, str(count)]
        for value in values:
            cells += [f"{value[h]:.3f}" for h in heads]
        if len(values) == 2:
            cells += [f"{values[0][h] - values[1][h]:+.3f}" for h in heads]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for summary in summaries:
        lines.append(
            f"- {summary['label']}: flow `{summary['flow']}` {' '.join(summary['overrides'])}".rstrip()
            + f" — latency p50 {summary['latency_ms'].get('p50')} ms, p95 {summary['latency_ms'].get('p95')} ms;"
            f" {summary['llm_calls']} LLM calls, {summary['tokens']} tokens; ingest {summary['ingest_seconds']} s"
        )
    lines.append(missing_line(summaries[0]))
    return "\n".join(lines)


def missing_line(summary: dict[str, Any]) -> str:
    """``- evidence ids that name no turn: 2 (not scored; e.g. conv-26 `D99:1` in "…")``; the data, not a run."""
    count = summary["missing_evidence_ids"]
    if not count:
        return "- evidence ids that name no turn: 0"
    examples = ", ".join(f"{e['sample_id']} `{e['evidence']}` in \"{e['question']}\""
                         for e in summary["missing_evidence_examples"][:3])  # fmt: skip
    return f"- evidence ids that name no turn: {count} (not scored; e.g. {examples})"
