"""Running ``flowmem eval questions``: each question through a read flow, ranked against its answers.

The memories go into a workspace of their own in the ephemeral ``memory`` store (an evaluation
never touches the user's data), embedded once per model for every run of the comparison. Figures:

- **right first**: the share of questions whose top-1 memory is an answer;
- **R@k**: the share of a question's answers among the top k, averaged over questions;
- **MRR**: the mean of 1 / rank of the first answer (0 when none is retrieved).
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flowmem.app import App
from flowmem.config.loader import ConfigSource
from flowmem.eval.questions import Question
from flowmem.eval.runner import EmbeddingCache, Progress, RunSpec, bar
from flowmem.schema.memory import Memory

TARGET_FIRST = 0.70  # issue 14: the right memory first for at least 70 % of the questions


@dataclass
class Answered:
    question: Question
    retrieved: list[str]
    latency_ms: float

    @property
    def rank(self) -> int | None:
        """The 1-based rank of the first answering memory, None when none was retrieved."""
        return next((i for i, m in enumerate(self.retrieved, 1) if m in self.question.answers), None)

    def recall(self, k: int) -> float:
        top = set(self.retrieved[:k])
        return sum(1 for a in self.question.answers if a in top) / len(self.question.answers)


@dataclass
class QuestionsRun:
    spec: RunSpec
    answered: list[Answered] = field(default_factory=list)
    warnings: int = 0

    def figures(self, ks: Sequence[int], subset: Sequence[Answered] | None = None) -> dict[str, Any]:
        """``n``, ``right_first``, ``R@k`` and ``MRR`` over ``subset`` (all questions by default)."""
        chosen = list(self.answered if subset is None else subset)
        if not chosen:
            return {"n": 0, "right_first": 0.0, **{f"R@{k}": 0.0 for k in ks}, "MRR": 0.0}
        ranks = [a.rank for a in chosen]
        return {
            "n": len(chosen),
            "right_first": round(sum(r == 1 for r in ranks) / len(chosen), 4),
            **{f"R@{k}": round(statistics.fmean(a.recall(k) for a in chosen), 4) for k in ks},
            "MRR": round(statistics.fmean(1 / r if r else 0.0 for r in ranks), 4),
        }

    def to_dict(self, ks: Sequence[int]) -> dict[str, Any]:
        langs = sorted({a.question.lang for a in self.answered})
        tags = sorted({t for a in self.answered for t in a.question.tags})
        latencies = [a.latency_ms for a in self.answered]
        return {
            "label": self.spec.label,
            "flow": self.spec.flow,
            "overrides": list(self.spec.overrides),
            "overall": self.figures(ks),
            "per_language": {lang: self.figures(ks, [a for a in self.answered if a.question.lang == lang])
                             for lang in langs},
            "per_tag": {tag: self.figures(ks, [a for a in self.answered if tag in a.question.tags]) for tag in tags},
            "latency_ms": {"p50": round(statistics.median(latencies), 2)} if latencies else {},
            "warnings": self.warnings,
            "per_question": [
                {"id": a.question.id, "question": a.question.question, "lang": a.question.lang,
                 "answers": a.question.answers, "rank": a.rank, "retrieved": a.retrieved[: max(ks)]}
                for a in self.answered
            ],
        }  # fmt: skip


async def run_questions(
    questions: Sequence[Question],
    memories: Sequence[Memory],
    spec: RunSpec,
    *,
    config: ConfigSource | Sequence[ConfigSource] | None = None,
    plugins: Sequence[str] = (),
    top_k: int = 10,
    cache: EmbeddingCache | None = None,
    progress: Progress | None = None,
) -> QuestionsRun:
    """Store ``memories`` in a fresh ephemeral workspace and ask every question with ``spec``'s flow."""
    overrides = [*spec.overrides, "vector_store.default.backend=memory"]
    cache = cache or EmbeddingCache()
    run = QuestionsRun(spec)
    workspace = f"questions-{uuid.uuid4().hex[:8]}"
    default_time = max(m.updated_at or m.created_at for m in memories if m.created_at is not None)
    async with App(config=config, overrides=overrides, plugins=plugins) as app:
        app.flow(spec.flow)  # an invalid flow fails here, before any work
        vectors = await cache.embed(app.embedding_model(), [m.content for m in memories])
        stored = [m.model_copy(update={"vector": v, "workspace_id": workspace})
                  for m, v in zip(memories, vectors, strict=True)]  # fmt: skip
        await app.memories.import_(stored, workspace_id=workspace, reason="evaluation memories")
        for number, question in enumerate(questions, 1):
            asked = time.perf_counter()
            response = await app.run(spec.flow, query=question.question, user_id=question.user,
                                     workspace_id=workspace, timestamp=question.asked_at or default_time,
                                     top_k=top_k)  # fmt: skip
            latency = (time.perf_counter() - asked) * 1000
            run.warnings += len(response.warnings)
            retrieved = [m.memory_id for m in response.memories]
            run.answered.append(Answered(question, retrieved, latency))
            if progress and (number % 10 == 0 or number == len(questions)):
                progress(f"{spec.label}: {bar(number, len(questions))} questions")
    return run


def markdown(runs: Sequence[QuestionsRun], ks: Sequence[int]) -> str:
    """A row per figure group (overall, each language, each tag), the figures of every run side by side."""
    heads = ["right first", *(f"R@{k}" for k in ks), "MRR"]
    keys = ["right_first", *(f"R@{k}" for k in ks), "MRR"]
    columns = ["questions", "n", *(f"{run.spec.label} {h}" for run in runs for h in heads)]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    dicts = [run.to_dict(ks) for run in runs]
    groups = [("overall", [d["overall"] for d in dicts])]
    groups += [(f"lang {lang}", [d["per_language"][lang] for d in dicts]) for lang in dicts[0]["per_language"]]
    groups += [(f"tag {tag}", [d["per_tag"][tag] for d in dicts]) for tag in dicts[0]["per_tag"]]
    for name, figures in groups:
        cells = [name, str(figures[0]["n"])]
        for figure in figures:
            cells += [f"{figure[key]:.3f}" for key in keys]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for run, d in zip(runs, dicts, strict=True):
        text = f"- {run.spec.label}: flow `{run.spec.flow}` {' '.join(run.spec.overrides)}".rstrip()
        first = d["overall"]["right_first"]
        verdict = "met" if first >= TARGET_FIRST else "not met"
        lines.append(f"{text} — right memory first {first:.1%} (target ≥ {TARGET_FIRST:.0%}: {verdict}); "
                     f"latency p50 {d['latency_ms'].get('p50')} ms")  # fmt: skip
    if runs:
        missed = [a for a in runs[0].answered if a.rank != 1]
        lines += ["", f"Not first with {runs[0].spec.label} ({len(missed)} of {len(runs[0].answered)}):"]
        for a in missed:
            top = a.retrieved[0] if a.retrieved else "nothing"
            lines.append(f'- {a.question.id} "{a.question.question}": answer at rank {a.rank or "–"}, first {top}')
    return "\n".join(lines)
