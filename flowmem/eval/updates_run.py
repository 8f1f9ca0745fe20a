"""Running ``flowmem eval updates``: each scenario's chat through a write flow, graded, then reported.

Every scenario goes into a workspace of its own in the ephemeral ``memory`` store (an evaluation
never touches the user's data), through ``app.memories.add`` as ``flowmem ingest`` sends a chat. The
baseline is the same write path with ``contra_repeat_op`` replaced by ``append_memory_op`` (it adds
every new memory: no duplicate merged, no superseded fact expired) — the flow ``BASELINE_FLOW``, added
to the config of that run only. Replacing the op, rather than a switch inside it, keeps the baseline
what a memory layer without update logic would store, whatever that op's settings.

The **naive baseline** (:data:`NAIVE`) keeps no write path at all: every user message is stored as said,
one ``conversation`` memory per turn (the turns of ``flowmem eval locomo --ingest turns``; nothing
filtered, merged or expired), and questions are asked with plain vector recall (``vector_baseline``).
It is graded like the others, event dates excepted (a turn has no event time): its stale rate is how
many superseded facts a memory layer that never expires anything still serves.

A scenario's ``questions`` are asked once its whole chat is stored, with the run's search flow, at their
``asked_at``: right first, in top 5 and MRR@10 of the first memory holding the answer.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from flowmem.app import App
from flowmem.config.loader import ConfigSource
from flowmem.core.trace import Degradation, merge_degradations
from flowmem.eval.locomo import Conversation, Turn, turn_memories
from flowmem.eval.runner import bar
from flowmem.eval.updates import Grade, Scenario, ScenarioQuestion, answer_rank, grade
from flowmem.schema.kinds import SEARCH_FLOW
from flowmem.schema.memory import Memory, Message

Progress = Callable[[str], None]
USER = "user"
BASELINE_FLOW = "updates_baseline"
BASELINE = {
    "flow": {
        BASELINE_FLOW: {
            "flow_content": "info_filter_op >> get_observation_op >> append_memory_op >> update_vector_store_op",
            "description": "personal_summary without contra_repeat_op: every new memory added (eval baseline)",
            "outputs": ["memory_actions"],
        }
    }
}
DEPTH = 10  # questions: the memories searched for the answer (MRR@10)
TARGETS = {"stale_rate": 0.05, "wrongly_expired_rate": 0.02, "event_date_accuracy": 0.95, "duplicate_rate": 0.05}


@dataclass(frozen=True)
class UpdatesSpec:
    """One side of the evaluation: how memories are written, how questions are searched, the overrides of both.

    ``ingest``: ``flow`` sends the chat through the write flow ``flow``; ``turns`` stores every user message
    as said (``flow`` unused).
    """

    label: str
    flow: str
    overrides: tuple[str, ...] = ()
    ingest: Literal["flow", "turns"] = "flow"
    search_flow: str = SEARCH_FLOW


def naive_spec(overrides: Sequence[str] = ()) -> UpdatesSpec:
    """The naive baseline: every user turn stored as said, questions asked with plain vector recall."""
    return UpdatesSpec("naive (turns + vector_baseline)", "", tuple(overrides), "turns", "vector_baseline")


@dataclass(frozen=True)
class Answer:
    """A question of a scenario, asked: the rank of the first memory holding its answer, and what came first."""

    question: ScenarioQuestion
    rank: int | None
    first: str | None


def question_figures(answers: Sequence[Answer]) -> dict[str, Any]:
    """``n``, ``right_first``, ``in_top_5`` and ``mrr_at_10`` (``None`` when there is no question)."""
    if not answers:
        return {"n": 0, "right_first": None, "in_top_5": None, "mrr_at_10": None}
    ranks = [a.rank for a in answers]
    return {
        "n": len(answers),
        "right_first": round(sum(r == 1 for r in ranks) / len(ranks), 4),
        "in_top_5": round(sum(r is not None and r <= 5 for r in ranks) / len(ranks), 4),
        "mrr_at_10": round(sum(1 / r for r in ranks if r is not None) / len(ranks), 4),
    }


@dataclass
class ScenarioOutcome:
    scenario: Scenario
    grade: Grade
    memories: int
    answers: list[Answer] = field(default_factory=list)


@dataclass
class UpdatesRun:
    spec: UpdatesSpec
    outcomes: list[ScenarioOutcome] = field(default_factory=list)
    seconds: float = 0.0
    degradations: list[Degradation] = field(default_factory=list)

    def total(self, lang: str | None = None) -> Grade:
        """The counts summed over the scenarios (of one language, if given)."""
        total = Grade()
        for outcome in self.outcomes:
            if lang is None or outcome.scenario.lang == lang:
                total.add(outcome.grade)
        return total

    def answers(self, lang: str | None = None) -> list[Answer]:
        """The questions asked, of every scenario (of one language, if given)."""
        return [a for o in self.outcomes if lang is None or o.scenario.lang == lang for a in o.answers]

    def to_dict(self) -> dict[str, Any]:
        langs = sorted({o.scenario.lang for o in self.outcomes})
        return {
            "label": self.spec.label,
            "flow": self.spec.flow if self.spec.ingest == "flow" else None,
            "ingest": self.spec.ingest,
            "search_flow": self.spec.search_flow,
            "overrides": list(self.spec.overrides),
            "scenarios": len(self.outcomes),
            "overall": self.total().to_dict(),
            "per_language": {lang: self.total(lang).to_dict() for lang in langs},
            "questions": {"overall": question_figures(self.answers()),
                          "per_language": {lang: question_figures(self.answers(lang)) for lang in langs}},
            "seconds": round(self.seconds, 2),
            "degradations": [d.to_dict() for d in self.degradations],
            "per_scenario": [
                {"id": o.scenario.id, "lang": o.scenario.lang, "tags": o.scenario.tags, "memories": o.memories,
                 **o.grade.to_dict(), "failures": o.grade.failures,
                 "questions": [{"question": a.question.question, "answer": a.question.answer, "rank": a.rank,
                                "first": a.first} for a in o.answers]}
                for o in self.outcomes
            ],
        }  # fmt: skip


def turns_of(scenario: Scenario, workspace: str) -> list[Memory]:
    """Every user message as said: one ``conversation`` memory per turn (``flowmem eval locomo --ingest turns``)."""
    turns = [Turn(dia_id=f"{scenario.id}-{i}", speaker=USER, text=m.content, session=1, when=m.time)
             for i, m in enumerate(scenario.messages, 1) if m.role == "user"]  # fmt: skip
    return turn_memories(Conversation(scenario.id, (USER, "assistant"), turns), workspace, USER)


def messages_of(scenario: Scenario) -> list[Message]:
    return [
        Message(message_id=f"{scenario.id}-{i}", role=m.role, name=USER if m.role == "user" else "assistant",
                content=m.content, time_created=m.time)
        for i, m in enumerate(scenario.messages, 1)
    ]  # fmt: skip


async def run_updates(
    scenarios: Sequence[Scenario],
    spec: UpdatesSpec,
    *,
    config: ConfigSource | Sequence[ConfigSource] | None = None,
    plugins: Sequence[str] = (),
    batch: int = 50,
    progress: Progress | None = None,
) -> UpdatesRun:
    """Store every scenario's chat as ``spec`` says, grade what the user's memories hold after it, ask its questions."""
    sources: list[ConfigSource] = []
    if isinstance(config, (str, Path, Mapping)):
        sources.append(config)
    elif config is not None:
        sources.extend(config)
    if spec.flow == BASELINE_FLOW:
        sources.append(BASELINE)
    overrides = [*spec.overrides, "vector_store.default.backend=memory"]
    run = UpdatesRun(spec)
    run_id = uuid.uuid4().hex[:8]
    started = time.perf_counter()
    async with App(config=sources, overrides=overrides, plugins=plugins) as app:
        # An invalid flow fails here, before any work; the search flow only matters when there are questions.
        if spec.ingest == "flow":
            app.flow(spec.flow)
        if any(s.questions for s in scenarios):
            app.flow(spec.search_flow)
        for number, scenario in enumerate(scenarios, 1):
            workspace = f"updates-{scenario.id}-{run_id}"
            if spec.ingest == "turns":
                await app.memories.import_(turns_of(scenario, workspace), workspace_id=workspace,
                                           reason="evaluation turns")  # fmt: skip
            else:
                added = await app.memories.add(
                    messages_of(scenario), user_id=USER, workspace_id=workspace, flow=spec.flow, batch=batch
                )
                merge_degradations(run.degradations, added.degradations)
            page = await app.memories.list(workspace_id=workspace, user_id=USER, limit=None)
            graded = grade(scenario, page.memories, dated=spec.ingest == "flow")
            outcome = ScenarioOutcome(scenario, graded, page.total)
            for question in scenario.questions:
                response = await app.run(spec.search_flow, query=question.question, user_id=USER,
                                         workspace_id=workspace, timestamp=question.asked_at, top_k=DEPTH)  # fmt: skip
                merge_degradations(run.degradations, response.degradations)
                found = response.memories
                first = " ".join(found[0].content.split())[:80] if found else None
                outcome.answers.append(Answer(question, answer_rank(found, question.answer, DEPTH), first))
            run.outcomes.append(outcome)
            if progress and (number % 10 == 0 or number == len(scenarios)):
                progress(f"{spec.label}: {bar(number, len(scenarios))} scenarios")
    run.seconds = time.perf_counter() - started
    return run


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f} %"


FIGURES = (
    ("stale_rate", "stale facts", "stale", "expired"),
    ("wrongly_expired_rate", "wrongly expired", "wrongly_expired", "valid"),
    ("event_date_accuracy", "event-date accuracy", "events_right", "events"),
    ("duplicate_rate", "duplicates", "duplicated", "unique"),
    ("lost_rate", "lost facts", "lost", "facts"),
)


QUESTION_FIGURES = (("right_first", "questions: right first"), ("in_top_5", "questions: in top 5"),
                    ("mrr_at_10", "questions: MRR@10"))  # fmt: skip


def markdown(runs: Sequence[UpdatesRun]) -> str:
    """A table of the five figures (a column per run, with counts) and, when the scenarios ask questions, the
    question figures; then the failures of the first run."""
    columns = ["figure", "target", *(f"{r.spec.label}" for r in runs)]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for key, name, part, whole in FIGURES:
        target = TARGETS.get(key)
        sign = "≥" if key == "event_date_accuracy" else "≤"
        cells = [name, "" if target is None else f"{sign} {target * 100:g} %"]
        for run in runs:
            total = run.total()
            if key == "event_date_accuracy" and run.spec.ingest == "turns":
                cells.append("n/a (a turn has no event time)")
                continue
            cells.append(f"{_percent(total.rates()[key])} ({getattr(total, part)}/{getattr(total, whole)})")
        lines.append("| " + " | ".join(cells) + " |")
    figures = [question_figures(run.answers()) for run in runs]
    if any(f["n"] for f in figures):
        for key, name in QUESTION_FIGURES:
            cells = [f"{name} (n {figures[0]['n']})", ""]
            cells += ["–" if f[key] is None else f"{f[key]:.3f}" if key == "mrr_at_10" else _percent(f[key])
                      for f in figures]  # fmt: skip
            lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for run in runs:
        langs = ", ".join(f"{lang} {sum(o.scenario.lang == lang for o in run.outcomes)}"
                          for lang in sorted({o.scenario.lang for o in run.outcomes}))  # fmt: skip
        how = f"flow `{run.spec.flow}`" if run.spec.ingest == "flow" else "every user turn stored as said"
        if run.answers():
            how += f", questions with `{run.spec.search_flow}`"
        text = f"- {run.spec.label}: {how} {' '.join(run.spec.overrides)}".rstrip()
        lines.append(f"{text} — {len(run.outcomes)} scenarios ({langs}), {run.seconds:.1f} s")
        for degradation in run.degradations:
            lines.append(f"  - degraded: {degradation.summary()}")
    if runs:
        failed = [o for o in runs[0].outcomes if o.grade.failures]
        lines += ["", f"Failures of {runs[0].spec.label} ({len(failed)} of {len(runs[0].outcomes)} scenarios):"]
        for outcome in failed:
            for failure in outcome.grade.failures:
                lines.append(f"- {outcome.scenario.id}: {failure}")
        missed = [(o, a) for o in runs[0].outcomes for a in o.answers if a.rank != 1]
        if missed:
            lines += ["", f"Questions {runs[0].spec.label} did not answer first ({len(missed)} of "
                          f"{len(runs[0].answers())}):"]  # fmt: skip
            for outcome, a in missed:
                lines.append(f'- {outcome.scenario.id} "{a.question.question}": {a.question.answer} at rank '
                             f'{a.rank or "–"}, first: {a.first or "nothing"}')  # fmt: skip
    return "\n".join(lines)
