"""Running ``flowmem eval updates``: each scenario's chat through a write flow, graded, then reported.

Every scenario goes into a workspace of its own in the ephemeral ``memory`` store (an evaluation
never touches the user's data), through ``app.memories.add`` as ``flowmem ingest`` sends a chat. The
baseline is the same write path with ``contra_repeat_op`` replaced by ``append_memory_op`` (it adds
every new memory: no duplicate merged, no superseded fact expired) — the flow ``BASELINE_FLOW``, added
to the config of that run only. Replacing the op, rather than a switch inside it, keeps the baseline
what a memory layer without update logic would store, whatever that op's settings.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flowmem.app import App
from flowmem.config.loader import ConfigSource
from flowmem.eval.runner import bar
from flowmem.eval.updates import Grade, Scenario, grade
from flowmem.schema.memory import Message
from flowmem.trace import Degradation, merge_degradations

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
TARGETS = {"stale_rate": 0.05, "wrongly_expired_rate": 0.02, "event_date_accuracy": 0.95, "duplicate_rate": 0.05}


@dataclass(frozen=True)
class UpdatesSpec:
    """One side of the evaluation: a write flow and the overrides it runs with."""

    label: str
    flow: str
    overrides: tuple[str, ...] = ()


@dataclass
class ScenarioOutcome:
    scenario: Scenario
    grade: Grade
    memories: int


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

    def to_dict(self) -> dict[str, Any]:
        langs = sorted({o.scenario.lang for o in self.outcomes})
        return {
            "label": self.spec.label,
            "flow": self.spec.flow,
            "overrides": list(self.spec.overrides),
            "scenarios": len(self.outcomes),
            "overall": self.total().to_dict(),
            "per_language": {lang: self.total(lang).to_dict() for lang in langs},
            "seconds": round(self.seconds, 2),
            "degradations": [d.to_dict() for d in self.degradations],
            "per_scenario": [
                {"id": o.scenario.id, "lang": o.scenario.lang, "tags": o.scenario.tags, "memories": o.memories,
                 **o.grade.to_dict(), "failures": o.grade.failures}
                for o in self.outcomes
            ],
        }  # fmt: skip


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
    """Ingest every scenario's chat with ``spec``'s write flow and grade what the user's memories hold after it."""
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
        app.flow(spec.flow)  # an invalid flow fails here, before any work
        for number, scenario in enumerate(scenarios, 1):
            workspace = f"updates-{scenario.id}-{run_id}"
            added = await app.memories.add(
                messages_of(scenario), user_id=USER, workspace_id=workspace, flow=spec.flow, batch=batch
            )
            merge_degradations(run.degradations, added.degradations)
            page = await app.memories.list(workspace_id=workspace, user_id=USER, limit=None)
            run.outcomes.append(ScenarioOutcome(scenario, grade(scenario, page.memories), page.total))
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


def markdown(runs: Sequence[UpdatesRun]) -> str:
    """A table of the five figures (a column per run, with counts), then the failures of the first run."""
    columns = ["figure", "target", *(f"{r.spec.label}" for r in runs)]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for key, name, part, whole in FIGURES:
        target = TARGETS.get(key)
        sign = "≥" if key == "event_date_accuracy" else "≤"
        cells = [name, "" if target is None else f"{sign} {target * 100:g} %"]
        for run in runs:
            total = run.total()
            cells.append(f"{_percent(total.rates()[key])} ({getattr(total, part)}/{getattr(total, whole)})")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for run in runs:
        langs = ", ".join(f"{lang} {sum(o.scenario.lang == lang for o in run.outcomes)}"
                          for lang in sorted({o.scenario.lang for o in run.outcomes}))  # fmt: skip
        text = f"- {run.spec.label}: flow `{run.spec.flow}` {' '.join(run.spec.overrides)}".rstrip()
        lines.append(f"{text} — {len(run.outcomes)} scenarios ({langs}), {run.seconds:.1f} s")
        for degradation in run.degradations:
            lines.append(f"  - degraded: {degradation.summary()}")
    if runs:
        failed = [o for o in runs[0].outcomes if o.grade.failures]
        lines += ["", f"Failures of {runs[0].spec.label} ({len(failed)} of {len(runs[0].outcomes)} scenarios):"]
        for outcome in failed:
            for failure in outcome.grade.failures:
                lines.append(f"- {outcome.scenario.id}: {failure}")
    return "\n".join(lines)
