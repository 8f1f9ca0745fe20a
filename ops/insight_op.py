"""``insight_op``: insights consolidated from several observations of a user, kept in step with their sources."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import ANSWER, INSIGHT_ACTIONS, TIMESTAMP, USER_ID, WORKSPACE_ID, WRITE_FENCES
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_json
from flowmem.schema.actions import MemoryAction
from flowmem.schema.history import HistoryEvent
from flowmem.schema.kinds import MemoryType
from flowmem.schema.memory import Memory
from flowmem.scoring.slots import SLOTS_KEY
from flowmem.vector_store.filters import MemoryFilter

_OBSERVED: tuple[MemoryType, ...] = ("observation", "obs_customized")
SOURCES_KEY = "insight_sources"  # metadata: {observation memory id: its updated_at (ISO) when the insight was made}


@register_op
class InsightOp(Op):
    """Refresh the user's insights whose sources changed, then consolidate observations into new ``insight`` memories.

    An insight this op makes is linked to the observations it rests on: ``metadata["insight_sources"]`` maps each
    source memory's id to its ``updated_at`` at the time (its ``source`` lists their messages, so deleting a message
    reaches the insight too). Each run first checks every such insight of the user: when a source is gone, expired
    or updated since (its ``updated_at`` differs), the insight is expired (never deleted; the history and
    ``metadata["expired_because"]`` say which source and why), and its still-valid sources go back into the pool, so
    the LLM recomputes it from what is true now. Run it after writes — the ``personal_insight`` flow — to keep
    insights in step with what they rest on.

    Consolidating needs an LLM: it gets the newest ``max_sources`` valid observations (``source_types``) and the
    insights kept, and answers with insights resting on at least ``min_sources`` of them. Without an LLM nothing is
    consolidated (rules cannot honestly conclude a habit from a list of facts); the run says so in a warning, and
    stale insights are still expired. Writes ``insight_actions`` (the ``MemoryAction`` of each add and expire) and
    ``answer`` (counts).

    Reads: the user's valid insights (as many as runs have made and kept, not growing with the observations), the
    sources they name (by id), and the ``max_sources`` newest observations (one ordered, limited read).
    """

    class Params(OpParams):
        source_types: list[MemoryType] = Field(
            default_factory=lambda: list(_OBSERVED), description="the memory types consolidated"
        )
        min_sources: int = Field(3, ge=2, le=20, description="the observations an insight must rest on, at least")
        max_sources: int = Field(60, ge=2, le=500, description="how many of the newest observations the LLM reads")
        max_insights: int = Field(5, ge=1, le=20, description="at most this many new insights per run")

    params: Params
    reads = (WORKSPACE_ID, USER_ID)
    optional_reads = (TIMESTAMP, WRITE_FENCES)
    writes = (INSIGHT_ACTIONS, ANSWER)
    uses = ("llm", "embedding_model", "vector_store")
    writes_store = True

    async def execute(self, ctx: OpContext) -> None:
        workspace, user = ctx[WORKSPACE_ID], ctx[USER_ID]
        now = ctx.get(TIMESTAMP) or datetime.now().replace(microsecond=0)
        kept, actions = await self._refresh(workspace, user, now)
        if self.llm.available:
            actions += await self._consolidate(ctx, workspace, user, kept, now)
        else:
            ctx.warn("insights need an LLM (llm.default is none): none consolidated; stale insights were still expired")
        await self._store(ctx, workspace, actions)
        counts = {kind: sum(a.action == kind for a in actions) for kind in ("add", "expire")}
        ctx.note("insights", {**counts, "kept": len(kept)})
        ctx[INSIGHT_ACTIONS] = actions
        ctx[ANSWER] = f"added {counts['add']} insights, expired {counts['expire']}; {len(kept)} kept"

    async def _refresh(self, workspace: str, user: str, now: datetime) -> tuple[list[Memory], list[MemoryAction]]:
        """The user's valid insights still in step with their sources, and the expiry of those that are not."""
        flt = MemoryFilter(target=user, memory_type="insight", status="valid")
        insights = [m async for batch in self.vector_store.iterate(workspace, flt) for m in batch]
        linked = [m for m in insights if isinstance(m.metadata.get(SOURCES_KEY), dict)]
        ids = [i for m in linked for i in m.metadata[SOURCES_KEY]]
        current = {m.memory_id: m for m in await self.vector_store.get(workspace, ids)}
        linked_ids = {m.memory_id for m in linked}
        kept = [m for m in insights if m.memory_id not in linked_ids]  # not this op's: no sources to check
        actions: list[MemoryAction] = []
        for insight in linked:
            why = _stale(insight.metadata[SOURCES_KEY], current)
            if why is None:
                kept.append(insight)
                continue
            metadata = {**insight.metadata, "expired_because": why}
            expired = insight.model_copy(update={"status": "expired", "updated_at": max(now, insight.updated_at),
                                                 "metadata": metadata})  # fmt: skip
            actions.append(MemoryAction(action="expire", memory=expired, old=insight, reason=why))
        return kept, actions

    async def _consolidate(
        self, ctx: OpContext, workspace: str, user: str, kept: list[Memory], now: datetime
    ) -> list[MemoryAction]:
        flt = MemoryFilter(target=user, memory_type=tuple(self.params.source_types), status="valid")
        pool = (await self.vector_store.newest(workspace, flt, limit=self.params.max_sources))[::-1]  # oldest first
        if len(pool) < self.params.min_sources:
            ctx.note("consolidated", f"{len(pool)} observations, fewer than min_sources {self.params.min_sources}")
            return []
        prompt = load_prompt("insight")
        system = prompt.system.replace("{min_sources}", str(self.params.min_sources)).replace(
            "{max_insights}", str(self.params.max_insights)
        )
        observations = "\n".join(f"{i}. [{m.created_at:%Y-%m-%d}] {m.content}" for i, m in enumerate(pool))
        listing = "\n".join(f"- {m.content}" for m in kept) or "(none)"
        user_text = prompt.user.format(user=user, kept=listing, observations=observations)
        reply = await ask(self.llm, ctx, system, user_text, json_mode=True)
        data = parse_json(reply.text)
        proposals = _proposals(data, len(pool), self.params.min_sources)
        if not proposals and data not in ([], {}):  # an empty list is an answer: nothing new to conclude
            ctx.warn("LLM gave no usable insights (each needs content and enough valid source numbers)")
        known = {_normal(m.content) for m in kept}
        actions: list[MemoryAction] = []
        for content, indexes, when_to_use, keywords in proposals[: self.params.max_insights]:
            if _normal(content) in known:
                continue
            known.add(_normal(content))
            sources = [pool[i] for i in indexes]
            insight = _insight(workspace, user, content, sources, when_to_use, keywords, now)
            actions.append(MemoryAction(action="add", memory=insight, reason=f"from {len(sources)} observations"))
        return actions

    async def _store(self, ctx: OpContext, workspace: str, actions: list[MemoryAction]) -> None:
        if not actions:
            return
        added = [a.memory for a in actions if a.action == "add"]
        if added:
            vectors = await self.embedding_model.embed([m.content for m in added], kind="document")
            for memory, vector in zip(added, vectors, strict=True):
                memory.vector = vector
        expired = [a.memory for a in actions if a.action == "expire"]
        stored = {m.memory_id: m.vector for m in await self.vector_store.get(
            workspace, [m.memory_id for m in expired], with_vectors=True)}  # fmt: skip
        for memory in expired:
            memory.vector = stored.get(memory.memory_id)
        history = [
            HistoryEvent.of("add" if a.action == "add" else "expire", old=a.old, new=a.memory, flow_id=ctx.flow_id,
                            reason=a.reason)
            for a in actions
        ]  # fmt: skip
        await self.vector_store.write(
            workspace, [a.memory for a in actions], history=history, fence=self.write_fence(ctx)
        )


def _stale(sources: dict[str, Any], current: dict[str, Memory]) -> str | None:
    """Why an insight no longer rests on what it was made from (``None``: it still does)."""
    for memory_id, seen in sources.items():
        source = current.get(memory_id)
        if source is None:
            return f"source {memory_id} was deleted"
        if source.status != "valid":
            return f"source {memory_id} expired"
        if source.updated_at.isoformat() != seen:
            return f"source {memory_id} was updated ({seen} → {source.updated_at.isoformat()})"
    return None


def _insight(
    workspace: str, user: str, content: str, sources: list[Memory], when_to_use: str, keywords: list[str], now: datetime
) -> Memory:
    # The sources as they are now are part of the id: an insight recomputed after a source changed is a new memory.
    seen = sorted(f"{m.memory_id}@{m.updated_at.isoformat()}" for m in sources)
    key = "".join(f"{len(p)}\0{p}\0" for p in (workspace, user, "insight", *seen, _normal(content)))
    return Memory(
        workspace_id=workspace,
        memory_id=hashlib.sha256(key.encode()).hexdigest()[:32],
        target=user,
        memory_type="insight",
        when_to_use=when_to_use,
        content=content,
        keywords=keywords,
        created_at=now,
        updated_at=now,
        source=list(dict.fromkeys(s for m in sources for s in m.source)),
        # No slots: the sources hold them, and an insight follows its sources (refreshed above), not the slot rule.
        metadata={SOURCES_KEY: {m.memory_id: m.updated_at.isoformat() for m in sources}, SLOTS_KEY: {}},
    ).with_message_time(now)


def _proposals(data: Any, count: int, minimum: int) -> list[tuple[str, list[int], str, list[str]]]:
    """``(content, source indexes, when_to_use, keywords)`` of each usable item of the LLM's reply."""
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    found = []
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict):
            continue
        content = " ".join(str(item.get("content") or "").split())
        indexes: list[int] = []
        for raw in item.get("sources") or []:
            try:
                index = int(str(raw).strip())
            except ValueError:
                continue
            if 0 <= index < count and index not in indexes:
                indexes.append(index)
        if content and len(indexes) >= minimum:
            keywords = item.get("keywords")
            found.append((content, indexes, " ".join(str(item.get("when_to_use") or "").split()),
                          [str(k) for k in keywords][:8] if isinstance(keywords, list) else []))  # fmt: skip
    return found


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())
