"""What the memory service's calls return: plain, JSON-ready records."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_jsonable_python

from flowmem.core.errors import DegradedError
from flowmem.core.trace import Degradation, merge_degradations
from flowmem.flow.response import Response
from flowmem.schema.actions import ALREADY_MEMORIZED, MemoryAction, SkippedMessage
from flowmem.schema.memory import Memory
from flowmem.schema.timeparts import format_when

SKIPPED_IDS_KEPT = 20  # message ids kept per skip reason: examples, not a ledger (2,000 skipped stay small)


@dataclass
class AddResult:
    """What an ``add`` did.

    Attributes:
        actions: Every decision of the write path, in order (``add``, ``update``, ``expire``, ``skip``),
            each with the memory it concerns (and the old state for updates and expiries).
        messages: Messages sent through the write flow.
        skipped: Messages left out, counted by reason: ``already memorized`` (the store memorized them for this
            user before), and the write flow's (:class:`~flowmem.schema.actions.SkippedMessage`): ``not the
            user's (name 'bob')``, ``noise: pleasantry``, … Nothing is dropped without being counted here.
        skipped_ids: The first :data:`SKIPPED_IDS_KEPT` message ids of each reason (examples to look at).
        warnings: Degradations of the write flow's ops (e.g. an LLM call that failed and the offline
            rules that were used instead), each prefixed by the op, each different text once.
        degradations: The same, structured and counted over every batch: one record per (op, kind) with how
            many times it happened and the first reason (:meth:`degradation_summary` says them in one line each).
    """

    actions: list[MemoryAction] = field(default_factory=list)
    messages: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    skipped_ids: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    degradations: list[Degradation] = field(default_factory=list)

    @property
    def degraded(self) -> bool:
        """Whether any op did less than its best (an LLM call failed, a fallback was used)."""
        return bool(self.degradations)

    def degradation_summary(self) -> list[str]:
        """One line per degradation: ``info_filter_op: 2 LLM calls failed: <first reason>; <what was used>``."""
        return [d.summary() for d in self.degradations]

    @property
    def counts(self) -> Counter[str]:
        """How many actions of each kind (``add``, ``update``, ``expire``, ``skip``)."""
        return Counter(a.action for a in self.actions)

    @property
    def already_memorized(self) -> int:
        """Messages skipped because the store already memorized them for this user."""
        return self.skipped[ALREADY_MEMORIZED]

    def skip(self, skipped: Iterable[SkippedMessage]) -> None:
        """Count messages left out, each under its reason (keeping the first ids of each)."""
        for one in skipped:
            self.skipped[one.reason] += 1
            ids = self.skipped_ids.setdefault(one.reason, [])
            if len(ids) < SKIPPED_IDS_KEPT:
                ids.append(one.message_id)

    def skipped_summary(self, examples: int = 3, *, leave_out: Collection[str] = ()) -> list[str]:
        """One line per reason, most messages first: ``8  not the user's (name 'bob')  e.g. m2, m4, m6``."""
        lines = []
        for reason, count in self.skipped.most_common():
            if reason in leave_out:
                continue
            ids = self.skipped_ids.get(reason, [])[:examples]
            more = ", …" if count > len(ids) else ""
            lines.append(f"{count:>6}  {reason}" + (f"  e.g. {', '.join(ids)}{more}" if ids else ""))
        return lines

    @property
    def memory_ids(self) -> list[str]:
        """The ids of the memories added or changed, in order."""
        return list(dict.fromkeys(a.memory.memory_id for a in self.actions if a.action != "skip"))

    def merge(self, other: AddResult) -> None:
        self.actions += other.actions
        self.messages += other.messages
        self.skipped.update(other.skipped)
        for reason, ids in other.skipped_ids.items():
            kept = self.skipped_ids.setdefault(reason, [])
            kept += ids[: SKIPPED_IDS_KEPT - len(kept)]
        self.warnings += [w for w in other.warnings if w not in self.warnings]
        merge_degradations(self.degradations, other.degradations)

    def to_dict(self) -> dict[str, Any]:
        return {
            "actions": [
                {"action": a.action, "memory_id": a.memory.memory_id, "content": a.memory.content,
                 "status": a.memory.status, "reason": a.reason,
                 "old": None if a.old is None else {"content": a.old.content, "status": a.old.status}}
                for a in self.actions
            ],
            "counts": dict(self.counts),
            "messages": self.messages,
            "already_memorized": self.already_memorized,
            "skipped": dict(self.skipped.most_common()),
            "skipped_ids": {reason: list(ids) for reason, ids in self.skipped_ids.items()},
            "warnings": list(self.warnings),
            "degradations": [d.to_dict() for d in self.degradations],
        }  # fmt: skip


def strict_stop(error: DegradedError, written: AddResult, what: str) -> DegradedError:
    """The strict stop, saying what was not written (``what``) and what earlier batches wrote."""
    d = error.degradation
    done = ", ".join(f"{kind} {n}" for kind, n in sorted(written.counts.items()))
    before = (
        f"the {written.messages} messages before it were written ({done or 'no changes'})"
        if written.messages
        else "nothing was written"
    )
    message = (
        f"strict: stopped at {what}, not written: {d.op}: {d.kind}: {d.message}; {before} (flow run {error.flow_id})"
    )
    return DegradedError(message, d, error.flow_id, partial=written)


@dataclass
class SearchResult:
    """The memories a retrieval flow returned, best first, each with every score factor.

    Attributes:
        memories: The memories (``scores``, ``score_sources`` and ``explain`` say why each is there).
        answer: The flow's text answer (memories formatted with their times), ready for a prompt.
        warnings: Degradations during the run.
        response: The whole flow response (trace, near misses) for ``--explain``-style rendering.
    """

    memories: list[Memory]
    answer: str
    warnings: list[str]
    response: Response

    def to_dict(self, *, explain: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "memories": [_scored(m) for m in self.memories],
            "answer": self.answer,
            "warnings": list(self.warnings),
        }
        if explain:
            data["explain"] = self.response.to_dict(trace=True)
        return data

    def to_brief(self) -> dict[str, Any]:
        """What an agent needs of each memory, for a prompt: ``id``, ``content``, ``type``, ``time`` (when it
        happens, else when it was said, as the answer's lines write it) and ``score`` (the final one, 3
        decimals); ``warnings`` only when there are any. No answer text (the same memories again), time
        parts, keys or score factors: :meth:`to_dict` has those (~1,500 characters a memory)."""
        data: dict[str, Any] = {"memories": [_brief(m) for m in self.memories]}
        if self.warnings:
            data["warnings"] = list(self.warnings)
        return data


def _brief(memory: Memory) -> dict[str, Any]:
    when = memory.event_time or memory.message_time or memory.created_at
    score = memory.scores.get("final")
    return {
        "id": memory.memory_id,
        "content": memory.content,
        "type": memory.memory_type,
        "time": format_when(when),
        "score": None if score is None else round(score, 3),
    }


def _scored(memory: Memory) -> dict[str, Any]:
    record = memory.to_record()
    record["scores"] = dict(memory.scores)
    return record


@dataclass
class MemoryPage:
    """One page of a listing: ``memories`` (oldest first), and ``total`` matching memories."""

    memories: list[Memory]
    total: int
    offset: int
    limit: int

    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, or ``None`` after the last."""
        following = self.offset + len(self.memories)
        return following if following < self.total and self.memories else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "memories": [m.to_record() for m in self.memories],
            "total": self.total,
            "offset": self.offset,
            "limit": self.limit,
            "next_offset": self.next_offset,
        }


@dataclass
class ForgetResult:
    """What ``forget`` erased: memories, message-ledger entries, history events and chat sessions."""

    workspace_id: str
    user_id: str | None
    memories: int = 0
    messages: int = 0
    history: int = 0
    sessions: int = 0

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable_python(self.__dict__)  # type: ignore[no-any-return]
