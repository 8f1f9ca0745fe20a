"""Running a flow over every LoCoMo question and collecting what it retrieved.

Each conversation is ingested into a workspace of its own (turns as ``conversation`` memories,
message time = the session's date); every question of categories 1–4 is asked with the query
timestamp set to the conversation's last session time; retrieved memories are mapped back to
the ``dia_id`` s of the turns they came from. By default the memories go to the ephemeral
``memory`` store (exact search, the same results as ``local``) so an evaluation never touches the
user's data; ``use_config_store`` evaluates the configured store instead, in throwaway
workspaces it empties afterwards. Turn embeddings are cached per model, so an A/B comparison
embeds the conversation once.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from flowmem.app import App
from flowmem.config.loader import ConfigSource
from flowmem.embedding.base import EmbeddingModel
from flowmem.eval.locomo import Conversation, turn_memories
from flowmem.schema.memory import Memory, Message

Progress = Callable[[str], None]


@dataclass(frozen=True)
class RunSpec:
    """One side of an evaluation: a flow, the config it runs with, and how memories are made.

    ``ingest``: ``turns`` stores every turn as a ``conversation`` memory; ``summary`` sends the
    turns through the write flow ``summary_flow`` (``personal_summary``), as a user's chat would go.
    """

    label: str
    flow: str
    overrides: tuple[str, ...] = ()
    ingest: Literal["turns", "summary"] = "turns"
    summary_flow: str = "personal_summary"


@dataclass
class QuestionResult:
    sample_id: str
    question: str
    category: int
    evidence: tuple[str, ...]
    retrieved: list[str]
    latency_ms: float
    llm_calls: int = 0
    tokens: int = 0


@dataclass
class RunResult:
    spec: RunSpec
    questions: list[QuestionResult] = field(default_factory=list)
    ingest_seconds: float = 0.0
    # (sample id, question, evidence id) for every evidence id that names no turn of its conversation
    missing_evidence: list[tuple[str, str, str]] = field(default_factory=list)
    warnings: int = 0


class EmbeddingCache:
    """Turn vectors by (model, text), so two runs with the same model embed each turn once."""

    def __init__(self) -> None:
        self._vectors: dict[tuple[str, str], np.ndarray] = {}

    async def embed(self, model: EmbeddingModel, texts: Sequence[str]) -> list[np.ndarray]:
        key = model.model_id
        todo = list(dict.fromkeys(t for t in texts if (key, t) not in self._vectors))
        if todo:
            for text, vector in zip(todo, await model.embed(todo, kind="document"), strict=True):
                self._vectors[(key, text)] = vector
        return [self._vectors[(key, t)] for t in texts]


async def run_locomo(
    conversations: Sequence[Conversation],
    spec: RunSpec,
    *,
    config: ConfigSource | Sequence[ConfigSource] | None = None,
    plugins: Sequence[str] = (),
    top_k: int = 20,
    use_config_store: bool = False,
    cache: EmbeddingCache | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Evaluate one flow configuration on the conversations."""
    overrides = list(spec.overrides)
    if not use_config_store:
        overrides.append("vector_store.default.backend=memory")
    cache = cache or EmbeddingCache()
    result = RunResult(spec)
    # The workspace is part of every memory id, and ids break ties in a ranking: an ephemeral store gets the same
    # workspace every run, so a run repeats exactly (R@1 moved by two questions between identical runs); a shared store
    # gets a workspace of this run's own.
    run_id = uuid.uuid4().hex[:8] if use_config_store else "run"
    async with App(config=config, overrides=overrides, plugins=plugins) as app:
        app.flow(spec.flow)  # an invalid flow fails here, before any work
        embedder = app.embedding_model()
        for conversation in conversations:
            workspace = f"locomo-{conversation.sample_id}-{run_id}"
            target = conversation.sample_id
            started = time.perf_counter()
            memories = turn_memories(conversation, workspace, target)
            if spec.ingest == "summary":
                await _summarize(app, spec, conversation, workspace, target, progress)
            else:
                if progress:
                    progress(f"{spec.label}: {conversation.sample_id}: embedding {len(memories)} turns")
                vectors = await cache.embed(embedder, [m.content for m in memories])
                stored = [m.model_copy(update={"vector": v}) for m, v in zip(memories, vectors, strict=True)]
                await app.memories.import_(stored, workspace_id=workspace, reason="LoCoMo turns")
            result.ingest_seconds += time.perf_counter() - started
            try:
                for number, question in enumerate(conversation.questions, 1):
                    result.missing_evidence += [(conversation.sample_id, question.text, e)
                                                for e in question.missing_evidence]  # fmt: skip
                    asked = time.perf_counter()
                    response = await app.run(spec.flow, query=question.text, user_id=target, workspace_id=workspace,
                                             timestamp=conversation.last_time, top_k=top_k)  # fmt: skip
                    latency = (time.perf_counter() - asked) * 1000
                    usage = response.usage
                    result.warnings += len(response.warnings)
                    result.questions.append(
                        QuestionResult(
                            sample_id=conversation.sample_id,
                            question=question.text,
                            category=question.category,
                            evidence=question.evidence,
                            retrieved=_dia_ids(response.memories),
                            latency_ms=latency,
                            llm_calls=usage.llm_calls,
                            tokens=usage.total_tokens,
                        )
                    )
                    total = len(conversation.questions)
                    if progress and (number % 10 == 0 or number == total):
                        progress(f"{spec.label}: {conversation.sample_id}: {bar(number, total)} questions")
            finally:
                if use_config_store:
                    await app.memories.forget(workspace_id=workspace)
    return result


async def _summarize(
    app: App, spec: RunSpec, conversation: Conversation, workspace: str, target: str, progress: Progress | None
) -> None:
    """The turns as the target's chat messages (each turn's id is its ``dia_id``, its metadata the turn's speaker,
    session and caption, as ``turns`` stores them), through the write flow."""
    messages = [
        Message(
            message_id=m.memory_id,
            role="user",
            name=target,
            content=m.content,
            time_created=m.created_at,
            metadata=m.metadata,
        )
        for m in turn_memories(conversation, workspace, target)
    ]

    def show(done: int, total: int, _: object) -> None:
        if progress:
            progress(f"{spec.label}: {conversation.sample_id}: {bar(done, total)} turns summarized")

    await app.memories.add(messages, user_id=target, workspace_id=workspace, flow=spec.summary_flow, progress=show)


def _dia_ids(memories: Sequence[Memory]) -> list[str]:
    found: list[str] = []
    for memory in memories:
        for dia_id in memory.source or [str(memory.metadata.get("dia_id", memory.memory_id))]:
            if dia_id not in found:
                found.append(dia_id)
    return found


def bar(done: int, total: int, width: int = 20) -> str:
    """``[#########...........] 45/100``."""
    filled = int(width * done / total) if total else width
    return f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"


def stderr_progress() -> Progress:
    """A progress line on stderr, rewritten in place on a terminal."""
    tty = sys.stderr.isatty()

    def show(message: str) -> None:
        if tty:
            sys.stderr.write(f"\r\033[K{message}")
        else:
            sys.stderr.write(message + "\n")
        sys.stderr.flush()

    return show
