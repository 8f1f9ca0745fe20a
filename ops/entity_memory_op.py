"""``entity_memory_op``: a rolling description of each person, place or thing the user mentions."""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import ENTITIES, MESSAGES, QUERY, TIMESTAMP, USER_ID, WORKSPACE_ID, WRITE_FENCES
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_json
from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory, Message
from flowmem.scoring.entities import ENTITY_KINDS, EntityKind, Mention, entity_key, find_mentions
from flowmem.scoring.slots import SLOTS_KEY
from flowmem.vector_store.filters import MemoryFilter

ENTITY_KEY = "entity"  # metadata["entity"]: {"name", "kind", "relations", "mentions": [{"text", "at", "source"}]}
NAME_WORDS = 5  # the longest name looked up by the words of a text ("Mary-Jane Watson" is 3 words)
CJK_NAME = 6  # the longest Chinese name looked up (characters)
MAX_LOOKUPS = 2_000  # names looked up per run, at most
_WORD = re.compile(r"\w+")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")


@dataclass
class _Said:
    """One text of the user's: a message of the run, or the query."""

    text: str
    at: datetime
    source: str


@dataclass
class _Entity:
    name: str
    kind: EntityKind
    relations: list[str] = field(default_factory=list)
    mentions: list[dict[str, str]] = field(default_factory=list)
    description: str = ""
    stored: Memory | None = None
    changed: bool = False


@register_op
class EntityMemoryOp(Op):
    """Keep a rolling description of every person, pet, place, organisation and thing the user mentions, and
    write the user's entities, those the query names first, to ``entities``.

    The texts are the user's own messages of the run (``messages`` they sent) and the ``query`` (the new message of
    a chat). Offline, :mod:`flowmem.scoring.entities` finds the mentions (relations such as "my sister Ana", pets,
    places after "in / at / to", capitalised names, known names anywhere; its limits are listed there) and the
    description is how the user relates to the entity plus the last ``max_mentions`` sentences that mention it,
    dated. With an LLM, one call per run rewrites the description of every entity the texts mention from its old
    description and the new texts (LangChain's entity memory); an unusable reply falls back to the rules, with a
    warning.

    Each entity is stored as one memory of type ``entity`` about the user (id derived from the user and the name,
    so reruns update it in place; the history records each change), so every store keeps it and ``forget`` erases
    it; retrieval and the write path leave ``entity`` memories alone. ``entities`` is a list of ``{"name", "kind",
    "description", "updated_at"}`` (ISO 8601 wall-clock time): entities the query names, then those the run's
    texts mention, then the most recently updated, at most ``max_entities``.

    Reads: not every entity of the user. A stored entity's id is derived from its name, so the entities the texts
    may name are looked up by id (every run of up to 5 words of the texts and the query, up to 6 Chinese characters,
    at most 2,000 names: one ``get``, which returns only the entities that exist); the ``max_entities`` created last
    (one ordered, limited read) fill the list after them. A run reads at most the entities its texts name plus
    ``max_entities``, however many the user has; a known entity is recognised when a text writes its name (a
    later mention by another wording is found by the offline rules as before).
    """

    class Params(OpParams):
        max_entities: int = Field(10, ge=1, le=1000, description="how many entities to write to `entities`")
        max_mentions: int = Field(
            3,
            ge=1,
            le=20,
            description="offline: how many of the latest sentences naming an entity its description quotes",
        )
        include_query: bool = Field(True, description="read the query too (the new message of a chat)")
        update: bool = Field(True, description="store what the run's texts say; false: only read the stored entities")

    params: Params
    reads = (WORKSPACE_ID, USER_ID)
    optional_reads = (MESSAGES, QUERY, TIMESTAMP, WRITE_FENCES)
    writes = (ENTITIES,)
    uses = ("llm", "embedding_model", "vector_store")
    writes_store = True
    degradation = "describes the entities by the offline rules"

    async def execute(self, ctx: OpContext) -> None:
        await self._run(ctx, use_llm=self.llm.available)

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        await self._run(ctx, use_llm=False)

    async def _run(self, ctx: OpContext, *, use_llm: bool) -> None:
        workspace, user = ctx[WORKSPACE_ID], ctx[USER_ID]
        said = self._texts(ctx) if self.params.update else []
        entities = await self._stored(workspace, user, [s.text for s in said] + [ctx.get(QUERY) or ""])
        mentioned = self._mention(user, said, entities)
        if mentioned and use_llm:
            await self._describe_llm(ctx, user, said, entities, mentioned)
        for key in mentioned:
            entity = entities[key]
            if not entity.description or not use_llm:
                entity.description = _offline_description(user, entity, self.params.max_mentions)
        await self._store(ctx, workspace, user, [entities[k] for k in mentioned])
        ctx.note("mentioned", sorted(entities[k].name for k in mentioned))
        ctx.note("source", "llm descriptions" if use_llm and mentioned else "offline rules")
        ctx[ENTITIES] = self._ranked(entities, mentioned, ctx.get(QUERY) or "")

    async def _stored(self, workspace: str, user: str, texts: list[str]) -> dict[str, _Entity]:
        """The stored entities ``texts`` may name (looked up by name) and the ``max_entities`` created last."""
        entities: dict[str, _Entity] = {}
        flt = MemoryFilter(target=user, memory_type="entity", status="valid")
        ids = [entity_memory_id(workspace, user, name) for name in _names_in(texts)]
        store = self.vector_store
        named, newest = await asyncio.gather(
            store.get(workspace, ids), store.newest(workspace, flt, limit=self.params.max_entities)
        )
        for memory in [*named, *newest]:
            data = memory.metadata.get(ENTITY_KEY)
            if not flt.matches(memory) or not isinstance(data, dict) or not data.get("name"):
                continue  # (a get is by id only: an expired entity is no longer one)
            entity = _Entity(
                str(data["name"]),
                _kind(data.get("kind")),
                list(data.get("relations") or []),
                list(data.get("mentions") or []),
                str(data.get("description") or ""),
                memory,
            )
            entities[entity_key(entity.name)] = entity
        return entities

    def _texts(self, ctx: OpContext) -> list[_Said]:
        user = ctx[USER_ID]
        said = [
            _Said(m.content, m.time_created, m.message_id)
            for m in (ctx.get(MESSAGES) or [])
            if isinstance(m, Message) and m.role == "user" and (m.is_from(user) or not m.name)
        ]
        query = (ctx.get(QUERY) or "").strip()
        if self.params.include_query and query:
            said.append(_Said(query, ctx.get(TIMESTAMP) or datetime.now().replace(microsecond=0), "query"))
        return said

    def _mention(self, user: str, said: list[_Said], entities: dict[str, _Entity]) -> list[str]:
        """Record each mention in ``entities``; the keys of the entities mentioned, in order."""
        known: dict[str, EntityKind] = {key: e.kind for key, e in entities.items()}
        mentioned: dict[str, None] = {}
        for text in said:
            for mention in find_mentions(text.text, user=user, known=known):
                key = entity_key(mention.name)
                known[key] = mention.kind
                entity = entities.setdefault(key, _Entity(mention.name, mention.kind))
                _record(entity, mention, text)
                mentioned[key] = None
        return [key for key in mentioned if entities[key].changed]

    async def _describe_llm(
        self, ctx: OpContext, user: str, said: list[_Said], entities: dict[str, _Entity], mentioned: list[str]
    ) -> None:
        prompt = load_prompt("entity_memory")
        known = (
            "\n".join(f"- {e.name} ({e.kind}): {e.description}" for e in entities.values() if e.description) or "(none)"
        )
        listing = "\n".join(f"{i}. [{s.at:%Y-%m-%d %H:%M}] {' '.join(s.text.split())}" for i, s in enumerate(said))
        reply = await ask(
            self.llm, ctx, prompt.system, prompt.user.format(user=user, known=known, messages=listing), json_mode=True
        )
        described = _llm_entities(parse_json(reply.text))
        if not described:
            ctx.warn("LLM gave no usable entity descriptions; described by the offline rules")
            return
        latest = max(s.at for s in said).isoformat()
        for name, kind, description in described:
            key = entity_key(name)
            entity = entities.setdefault(key, _Entity(name, kind))
            entity.kind = kind if kind != "thing" or entity.kind == "thing" else entity.kind
            entity.description, entity.changed = description, True
            if not entity.mentions or entity.mentions[-1]["at"] < latest:
                entity.mentions.append({"text": "", "at": latest, "source": "llm"})
            if key not in mentioned:
                mentioned.append(key)

    async def _store(self, ctx: OpContext, workspace: str, user: str, changed: list[_Entity]) -> None:
        if not changed:
            return
        memories = [_as_memory(workspace, user, entity) for entity in changed]
        vectors = await self.embedding_model.embed([m.content for m in memories], kind="document")
        memories = [m.model_copy(update={"vector": v}) for m, v in zip(memories, vectors, strict=True)]
        history = [
            HistoryEvent.of(
                "update" if e.stored else "add",
                old=e.stored,
                new=m,
                flow_id=ctx.flow_id,
                reason=f"entity {e.name} mentioned",
            )
            for e, m in zip(changed, memories, strict=True)
        ]
        await self.vector_store.write(workspace, memories, history=history, fence=self.write_fence(ctx))
        for entity, memory in zip(changed, memories, strict=True):
            entity.stored = memory

    def _ranked(self, entities: dict[str, _Entity], mentioned: list[str], query: str) -> list[dict[str, Any]]:
        asked = {key for key in entities if key and key in entity_key(query)}
        now = set(mentioned)

        def order(key: str) -> tuple[int, int, str]:
            return (key in asked, key in now, _updated(entities[key]))

        best = sorted(entities, key=order, reverse=True)[: self.params.max_entities]
        return [
            {
                "name": entities[k].name,
                "kind": entities[k].kind,
                "description": entities[k].description,
                "updated_at": _updated(entities[k]),
            }
            for k in best
        ]


def _names_in(texts: list[str]) -> list[str]:
    """Every name ``texts`` may write (by :func:`entity_key`): each run of 1 to :data:`NAME_WORDS` words as written
    between them ("St. Louis", "Sam" of "Sam's"), and each run of 1 to :data:`CJK_NAME` Chinese characters; at most
    :data:`MAX_LOOKUPS`."""
    names: dict[str, None] = {}
    for text in texts:
        folded = text.casefold()
        words = [(m.start(), m.end()) for m in _WORD.finditer(folded)]
        for i, (start, _) in enumerate(words):
            for _, end in words[i : i + NAME_WORDS]:
                names[entity_key(folded[start:end])] = None
        for run in _CJK_RUN.findall(folded):
            for i in range(len(run)):
                for j in range(i + 1, min(i + CJK_NAME, len(run)) + 1):
                    names[run[i:j]] = None
    return list(names)[:MAX_LOOKUPS]


def _record(entity: _Entity, mention: Mention, said: _Said) -> None:
    """Add ``mention`` to ``entity`` unless its sentence is recorded already."""
    if mention.relation and mention.relation not in entity.relations:
        entity.relations.append(mention.relation)
        entity.changed = True
    if entity.kind == "thing" and mention.kind != "thing":
        entity.kind, entity.changed = mention.kind, True
    record = {"text": mention.sentence, "at": said.at.isoformat(), "source": said.source}
    # The same sentence again adds nothing to a description: a rerun, or a chat's query that later arrives as a message.
    if any(m["text"] == record["text"] for m in entity.mentions):
        return
    entity.mentions.append(record)
    entity.mentions.sort(key=lambda m: m["at"])
    entity.changed = True


def _offline_description(user: str, entity: _Entity, quote: int) -> str:
    """How the user relates to it, then the latest ``quote`` sentences naming it, dated: what rules can honestly say."""
    parts = [f"{user}'s {' and '.join(entity.relations)}"] if entity.relations else [entity.kind]
    quoted = [m for m in entity.mentions if m.get("text")][-quote:]
    parts += [f"{m['text']} ({m['at'][:10]})" for m in quoted]
    return "; ".join(parts)


def _updated(entity: _Entity) -> str:
    return entity.mentions[-1]["at"] if entity.mentions else ""


def entity_memory_id(workspace: str, user: str, name: str) -> str:
    """The id of ``user``'s entity ``name``: the same on every run, so a mention updates it in place."""
    key = "".join(f"{len(part)}\0{part}\0" for part in (workspace, user, "entity", entity_key(name)))
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _as_memory(workspace: str, user: str, entity: _Entity) -> Memory:
    first, last = datetime.fromisoformat(entity.mentions[0]["at"]), datetime.fromisoformat(entity.mentions[-1]["at"])
    metadata: dict[str, Any] = {
        **(entity.stored.metadata if entity.stored else {}),
        ENTITY_KEY: {
            "name": entity.name,
            "kind": entity.kind,
            "relations": entity.relations,
            "mentions": entity.mentions[-50:],
            "description": entity.description,
        },
        SLOTS_KEY: {},  # a description states no slot of the user's: never a holder to supersede
    }
    return Memory(
        workspace_id=workspace,
        memory_id=entity_memory_id(workspace, user, entity.name),
        target=user,
        memory_type="entity",
        when_to_use=f"When {entity.name} comes up.",
        content=f"{entity.name} ({entity.kind}): {entity.description}",
        keywords=[entity.name, entity.kind, *entity.relations][:10],
        created_at=entity.stored.created_at if entity.stored else first,
        updated_at=last,
        source=list(dict.fromkeys(m["source"] for m in entity.mentions if m["source"] not in ("query", "llm")))[-50:],
        metadata=metadata,
    ).with_message_time(last)


def _llm_entities(data: Any) -> list[tuple[str, EntityKind, str]]:
    """``(name, kind, description)`` from ``[{"name": …, "kind": …, "description": …}, …]``; unusable items skipped."""
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    found: list[tuple[str, EntityKind, str]] = []
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict):
            continue
        name = " ".join(str(item.get("name") or "").split())
        description = " ".join(str(item.get("description") or "").split())
        if name and description:
            found.append((name, _kind(item.get("kind")), description))
    return found


def _kind(value: Any) -> EntityKind:
    """``value`` when it is an entity kind, else ``thing``."""
    kind = str(value or "").strip().lower()
    return next((k for k in ENTITY_KINDS if k == kind), "thing")
