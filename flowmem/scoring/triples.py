"""Knowledge triples without an LLM: (subject, relation, object) facts of a user's memories, with the time each held.

A triple comes from one memory's words: each single-valued fact the slot table finds (:mod:`flowmem.scoring.slots`:
"I live in Oakland" → ``(alice, lives_in, Oakland)``; "my cat Mochi" → ``(alice, has_cat, Mochi)``), and each named
relation the entity rules find (:mod:`flowmem.scoring.entities`: "my manager Dana" → ``(alice, manager, Dana)``).

Time is the memory's: a triple holds from the memory's event time when its words name one ("we move in on Saturday
the 18th"), else from when it was said; and until the memory expired. Which memory expires when is the write path's
decision (``contra_repeat_op`` expires the memory a newer statement supersedes: "we moved to Berkeley" closes
``lives_in Oakland`` at the time of the move's message) — no second rule here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from flowmem.schema.memory import Memory
from flowmem.scoring.entities import entity_key, find_mentions
from flowmem.scoring.slots import DEFAULT_RULES, SlotRules, first_person, named

# The slot table's names as relations; a slot a deployment adds keeps its own name.
RELATIONS: dict[str, str] = {
    "residence": "lives_in",
    "employer": "works_at",
    "job_title": "job_title",
    "school": "studies_at",
    "partner": "partner",
    "relationship_status": "relationship_status",
    "phone": "phone",
    "email": "email",
    "diet": "diet",
    "pet_name": "has_pet",
}


@dataclass(frozen=True)
class Triple:
    """One fact: ``subject`` ``relation`` ``object``, holding from ``valid_from`` until ``valid_to`` (``None``: still).

    Attributes:
        sources: The ids of the memories that state it.
    """

    subject: str
    relation: str
    object: str
    valid_from: datetime | None
    valid_to: datetime | None
    sources: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str, str]:
        return entity_key(self.subject), self.relation, entity_key(self.object)

    def as_dict(self) -> dict[str, Any]:
        """``{"subject", "relation", "object", "valid_from", "valid_to"}``, times in ISO 8601 (or ``None``)."""
        return {
            "subject": self.subject,
            "relation": self.relation,
            "object": self.object,
            "valid_from": self.valid_from.isoformat() if self.valid_from else None,
            "valid_to": self.valid_to.isoformat() if self.valid_to else None,
        }


def held(memory: Memory) -> tuple[datetime | None, datetime | None]:
    """When what ``memory`` states held: from its event time, else when it was said; until it expired."""
    start = memory.event_time or memory.created_at  # created_at is when it was said, to the second (msg_* to the hour)
    return start, memory.updated_at if memory.status == "expired" else None


def triples_of(memory: Memory, rules: SlotRules = DEFAULT_RULES) -> list[Triple]:
    """The triples ``memory``'s words state about its target, by the offline rules, in the order said."""
    subject = memory.target
    text = first_person(memory.content, named(memory))  # "Alice lives in …" reads as "I live in …"
    start, end = held(memory)
    found: dict[tuple[str, str, str], Triple] = {}

    def add(relation: str, value: str) -> None:
        triple = Triple(subject, relation, value, start, end, (memory.memory_id,))
        found.setdefault(triple.key, triple)

    for match in rules.find(text):
        slot, _, kind = match.slot.partition(":")
        relation = f"has_{kind}" if slot == "pet_name" and kind else RELATIONS.get(slot, slot)
        add(relation, _as_written(text, match.value))
    for mention in find_mentions(text, user=subject, rules=rules):
        if mention.kind == "person" and mention.relation and mention.name != mention.relation:
            add(mention.relation, mention.name)  # "my manager Dana"; a bare kin word (我妈) names no one else
    return list(found.values())


def merge(triples: Iterable[Triple]) -> list[Triple]:
    """One triple per (subject, relation, object): from the earliest start, open while any statement of it is,
    else until the latest end; the sources of all."""
    merged: dict[tuple[str, str, str], Triple] = {}
    for triple in triples:
        old = merged.get(triple.key)
        if old is None:
            merged[triple.key] = triple
            continue
        starts = [t for t in (old.valid_from, triple.valid_from) if t is not None]
        open_ = old.valid_to is None or triple.valid_to is None
        ends = [t for t in (old.valid_to, triple.valid_to) if t is not None]
        merged[triple.key] = replace(
            old,
            valid_from=min(starts) if starts else None,
            valid_to=None if open_ else max(ends),
            sources=tuple(dict.fromkeys(old.sources + triple.sources)),
        )
    return list(merged.values())


def _as_written(text: str, value: str) -> str:
    """``value`` (lower case, spaces collapsed) as ``text`` writes it, when it does ("oakland" → "Oakland")."""
    flat = " ".join(text.split())
    at = flat.casefold().find(value)
    return flat[at : at + len(value)] if at >= 0 else value
