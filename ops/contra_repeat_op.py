"""``contra_repeat_op``: new memories against what is already remembered — add, update or expire."""

from __future__ import annotations

import asyncio
import re
from datetime import date
from functools import cached_property, lru_cache
from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import MEMORY_ACTIONS, NEW_MEMORIES, SLOT_BACKFILL, USER_ID, WORKSPACE_ID
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_json
from flowmem.schema.actions import MemoryAction
from flowmem.schema.kinds import RECALLED_TYPES
from flowmem.schema.memory import Memory
from flowmem.scoring.acts import dialogue_act
from flowmem.scoring.aspect import tells_state
from flowmem.scoring.change import Change, remainder, subject_terms
from flowmem.scoring.echo import restated_slots
from flowmem.scoring.frames import analogous_slots, slot_frames
from flowmem.scoring.keys import CAPTION, LLM_KEY, SAID_BEFORE, SPEAKER, said_before
from flowmem.scoring.others import names_person, someone_else_at, with_owner
from flowmem.scoring.referents import resolved
from flowmem.scoring.same_content import content_key
from flowmem.scoring.slots import (
    DEFAULT_RULES,
    SLOTS_KEY,
    SlotRules,
    ended_slots,
    named,
    read_slots,
    stored_slots,
    superseded,
    with_slots,
)
from flowmem.scoring.supersede import (
    apply_changes,
    changes_of,
    expired_by,
    moved_plan,
    one_day_of_habit,
    recurring_day,
    same_speaker,
    supersede,
)
from flowmem.scoring.tokens import query_terms
from flowmem.scoring.values import differ as values_differ
from flowmem.scoring.values import find_values
from flowmem.timeexpr.clauses import SEGMENT_BREAK
from flowmem.vector_store.filters import UNREAD_SLOTS, MemoryFilter

Candidate = tuple[Memory, float]


@register_op
class ContraRepeatOp(Op):
    """Decide, for each new memory, whether to add it, update an existing one, or expire one it contradicts.

    Each new memory is compared with its ``top_k`` nearest valid memories of the user in scope,
    with every valid memory of the user holding one of the same single-valued facts ("slots": where
    they live, work, study, their job title, partner, pets' names, phone, … — :mod:`flowmem.scoring.slots`,
    extended by the ``slots`` param — and any attribute said with a copula, "my GP is Dr Osei", 我们公司在陆家嘴:
    :mod:`flowmem.scoring.attributes`), however far its wording, and with the new memories decided
    before it. Offline rules, in order: the same text again is *skipped* (its message is added to the
    existing memory's sources); a newer statement of a slot with a different value *expires* every
    memory holding the old value (``replace``, the default: newer wins, the old one is marked expired
    with ``metadata["superseded_by"]``, never deleted; its history event names the new memory and both
    values) or keeps both (``keep_both``); a near-duplicate (cosine ≥ ``duplicate_similarity``)
    *updates* the existing memory with the newer wording (unless the two hold different values of one kind —
    "gym tues" then "gym mon" is a change, not a paraphrase — and when both tell a state, "I'm in year 12" then "I'm in
    year 13", the newer *expires* the older: :func:`restates`); anything else is *added*. An added memory that
    states a change however worded (:mod:`flowmem.scoring.change`: something ended, a new value for the same
    thing, a correction) supersedes the older memories it is about, found among its nearest, its best word
    matches and the memories said just before it: they are expired and what else they said stays current as a
    derived memory with the new value written in (:mod:`flowmem.scoring.supersede`). Policy ``llm``
    asks the LLM instead, falling back to the rules on an unusable reply.

    The slots a memory holds are found once, when it is written, and kept in ``metadata["slots"]``
    (``{"residence": "milan"}``; ``{}``: none), and the store indexes them, so finding the holders of a slot reads
    those holders only, without re-reading any words (a rule added later applies to memories written after it). A stored
    memory without the key (written before slots were stored, or by a path that does not read them) is read
    from its words the first time it is looked through, and its slots are written back with the batch
    (``slot_backfill``, stored by ``update_vector_store_op`` in the same write, without a history event:
    its words and state are unchanged), so each is read once.
    """

    class Params(OpParams):
        policy: Literal["replace", "keep_both", "llm"] = Field(
            "replace", description="contradictions: newer wins (old expired), keep both, or ask the LLM"
        )
        duplicate_similarity: float = Field(
            0.95, ge=0, le=1, description="cosine at or above which a new memory updates an existing one"
        )
        paraphrase_overlap: float = Field(
            0.5,
            ge=0,
            le=1,
            description="a near-duplicate must also share this part of the shorter text's content words (0: the "
            "cosine alone decides)",
        )
        top_k: int = Field(5, ge=1, le=100, description="how many nearest existing memories to compare with")
        slots: dict[str, list[str]] = Field(
            default_factory=dict,
            description="more single-valued facts: slot name -> regex patterns with a (?P<v>...) value group, "
            "added to the built-in slots (residence, employer, job_title, school, partner, pet_name, ...)",
        )

        @field_validator("slots")
        @classmethod
        def _slots_compile(cls, slots: dict[str, list[str]]) -> dict[str, list[str]]:
            _rules(_frozen(slots))  # a bad pattern is a config error before anything runs
            return slots

    params: Params
    reads = (NEW_MEMORIES, WORKSPACE_ID, USER_ID)
    writes = (MEMORY_ACTIONS, SLOT_BACKFILL)
    uses = ("embedding_model", "vector_store", "llm")
    degradation = "decides with the offline rules (policy replace)"

    async def execute(self, ctx: OpContext) -> None:
        use_llm = self.params.policy == "llm" and self.llm.available
        ctx[MEMORY_ACTIONS], ctx[SLOT_BACKFILL] = await self._decide_all(ctx, use_llm=use_llm)

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        ctx[MEMORY_ACTIONS], ctx[SLOT_BACKFILL] = await self._decide_all(ctx, use_llm=False)

    @cached_property
    def rules(self) -> SlotRules:
        """The slot rules: the built-in ones plus this op's ``slots``."""
        return _rules(_frozen(self.params.slots))

    async def _decide_all(self, ctx: OpContext, *, use_llm: bool) -> tuple[list[MemoryAction], list[Memory]]:
        """The decisions, and the stored memories whose slots were read from their words (to write back)."""
        new: list[Memory] = ctx[NEW_MEMORIES]
        if not new:
            return [], []
        workspace, store, rules = ctx[WORKSPACE_ID], self.vector_store, self.rules
        vectors = await self.embedding_model.embed([m.content for m in new], kind="document")
        # What a turn says is read with its pronouns said as the people they stand for ("he got transferred to
        # York" of "my boyfriend"): its slots, its changes, what it ends. The turn itself is stored as said.
        said_as = {m.memory_id: resolved(m) for m in new}
        new = [
            m.model_copy(
                update={
                    "vector": v,
                    "metadata": {**m.metadata, SLOTS_KEY: read_slots(_worded(m, said_as[m.memory_id]), rules)},
                }
            )
            for m, v in zip(new, vectors, strict=True)
        ]
        # the assistant's restatement holds the slots it says again of the user's words in this batch
        new = [m.model_copy(update={"metadata": {**m.metadata, SLOTS_KEY: {**restated_slots(m, new),
                                                                           **m.metadata[SLOTS_KEY]}}})
               for m in new]  # fmt: skip
        reading = {m.memory_id: _worded(m, said_as[m.memory_id]) for m in new}  # each as it now is, read resolved
        stored = {m.memory_id for m in await store.get(workspace, [m.memory_id for m in new])}
        # The searches in one read (the local store: one matrix product for the batch); the decisions then run in
        # order, each seeing what the ones before it changed.
        # Only what was said or concluded: an entity's description (derived from these) is no duplicate of a new fact.
        flt = MemoryFilter(target=ctx[USER_ID], status="valid", memory_type=RECALLED_TYPES)
        found = await store.search_each(workspace, [m.vector for m in new], self.params.top_k, flt)
        ends = {m.memory_id: rules.ended(reading[m.memory_id].content, named(m)) for m in new}
        wanted = {slot for m in new for slot in [*m.metadata[SLOTS_KEY], *ended_slots(m.metadata[SLOTS_KEY])]}
        gone = {value for values in ends.values() for value in values}  # "Nibbles passed away": any slot holding it
        holders, backfill = await self._slot_holders(workspace, flt, wanted, gone) if wanted or gone else ({}, [])
        ctx.note("slot_holders", {slot: len(held) for slot, held in sorted(holders.items())})
        if backfill:
            ctx.note("slots_read_from_words", len(backfill))
        changes = {
            m.memory_id: changes_of(reading[m.memory_id]) if self.params.policy != "keep_both" else [] for m in new
        }
        nearby = await self._about_the_same(ctx, [reading[m.memory_id] for m in new], changes, flt)
        state: dict[str, Memory] = {}  # memories this batch adds or changes, as they now are
        actions: list[MemoryAction] = []
        for memory, hits in zip(new, found, strict=True):
            if memory.memory_id in stored or memory.memory_id in state:
                actions.append(MemoryAction(action="skip", memory=memory, reason="already stored (a rerun)"))
                continue
            ended = self._end(memory, ends[memory.memory_id], holders, state)
            for action in ended:
                state[action.memory.memory_id] = action.memory
            mine = memory.metadata[SLOTS_KEY]
            same_slot = [m for slot in [*mine, *ended_slots(mine)] for m in holders.get(slot, ())]
            candidates = self._candidates(memory, hits, same_slot, state)
            decided = await self._decide_llm(ctx, memory, candidates) if use_llm else None
            actions.extend(ended)
            made = decided or self._decide_rules(memory, candidates)
            if not use_llm and any(a.action == "add" and a.memory.memory_id == memory.memory_id for a in made):
                # as the decision left them: a statement its slot already expired is not rewritten again by its words
                now = {**state, **{a.memory.memory_id: a.memory for a in made if a.action != "skip"}}
                said = reading[memory.memory_id]
                made += self._changes(said, changes[memory.memory_id], [*hits, *nearby[memory.memory_id]], now)
                if self.params.policy != "keep_both" and not any(a.action == "expire" for a in [*ended, *made]):
                    made += moved_plan(said, _as_now(memory, hits, now))
            for action in made:
                if action.action != "skip":
                    state[action.memory.memory_id] = action.memory
                actions.append(action)
        for action in actions:  # whatever this run stores carries its slots (a stored memory found by likeness may not)
            if action.action != "skip" and not isinstance(action.memory.metadata.get(SLOTS_KEY), dict):
                action.memory = with_slots(action.memory, rules)
        changed = {a.memory.memory_id for a in actions if a.action != "skip"}
        backfill = [m for m in backfill if m.memory_id not in changed]  # a decision stores those as they now are
        await self._fill_vectors(ctx, [a.memory for a in actions if a.action != "skip"] + backfill)
        counts = {kind: sum(a.action == kind for a in actions) for kind in ("add", "update", "expire", "skip")}
        ctx.note("decisions", counts)
        return actions, backfill

    async def _about_the_same(
        self, ctx: OpContext, new: list[Memory], changes: dict[str, list[Change]], flt: MemoryFilter
    ) -> dict[str, list[Memory]]:
        """For each new memory stating a change, the stored memories it may be about beyond its nearest by vector:
        the best matches of its words (BM25) and the memories said just before it (what a correction corrects).
        Bounded reads: ``top_k`` × 4 by words, 3 before."""
        store, workspace = self.vector_store, ctx[WORKSPACE_ID]

        async def around(memory: Memory) -> list[Memory]:
            if not changes[memory.memory_id]:
                return []
            by_words, (before, _) = await asyncio.gather(
                store.lexical_search(workspace, memory.content, self.params.top_k * 4, flt),
                store.adjacent(workspace, memory.created_at, memory.memory_id, flt, before=3, after=0),
            )
            return [*by_words, *before]

        found = await asyncio.gather(*(around(m) for m in new))
        return {m.memory_id: olds for m, olds in zip(new, found, strict=True)}

    def _changes(
        self, memory: Memory, changes: list[Change], stored: list[Memory], state: dict[str, Memory]
    ) -> list[MemoryAction]:
        """What ``memory``'s changes (:mod:`flowmem.scoring.change`) do to the older memories they are about: the
        stored ones found for it and this batch's own, each as it now is."""
        if not changes:
            return []
        return apply_changes(memory, changes, _as_now(memory, stored, state))

    async def _slot_holders(
        self, workspace: str, flt: MemoryFilter, wanted: set[str], ended: set[str]
    ) -> tuple[dict[str, list[Memory]], list[Memory]]:
        """The user's valid memories holding each ``wanted`` slot or one of the ``ended`` values, wherever they are,
        and the memories that had no slots stored, now carrying the slots read from their words.

        Read through the store's slot index (``MemoryFilter.slots`` / ``slot_values``): the holders, not the user's
        other memories. The memories whose slots were never stored (``UNREAD_SLOTS``) come back with them until
        the write of this batch stores their slots (``slot_backfill``): each is read once."""
        holders: dict[str, list[Memory]] = {}
        backfill: list[Memory] = []
        seen: set[str] = set()
        reads = [flt.model_copy(update={"slots": (*sorted(wanted), UNREAD_SLOTS)})]
        if ended:
            reads.append(flt.model_copy(update={"slot_values": tuple(sorted(ended))}))
        for read in reads:
            async for batch in self.vector_store.iterate(workspace, read, batch_size=1000):
                for memory in batch:
                    if memory.memory_id in seen:
                        continue
                    seen.add(memory.memory_id)
                    if not isinstance(memory.metadata.get(SLOTS_KEY), dict):
                        memory = with_slots(memory, self.rules)
                        backfill.append(memory)
                    for slot, value in memory.metadata[SLOTS_KEY].items():
                        if slot in wanted or value in ended:
                            holders.setdefault(slot, []).append(memory)
        return holders, backfill

    def _end(
        self, memory: Memory, ended: set[str], holders: dict[str, list[Memory]], state: dict[str, Memory]
    ) -> list[MemoryAction]:
        """Expire the valid memories whose slot holds a value ``memory`` says is no more ("Nibbles passed away")."""
        if not ended or self.params.policy == "keep_both":
            return []
        found: dict[str, tuple[Memory, str]] = {}
        stored = [(m, slot) for slot, held in holders.items() for m in held]
        batch = [(m, slot) for m in state.values() if m.target == memory.target for slot in stored_slots(m, self.rules)]
        for held, slot in [*stored, *batch]:
            current = state.get(held.memory_id, held)
            value = stored_slots(current, self.rules).get(slot)
            if (
                current.status == "valid"
                and value in ended
                and current.created_at <= memory.created_at
                and same_speaker(current, memory)
                and _of_them(memory.content, value, current.content)
            ):
                found.setdefault(current.memory_id, (current, slot))
        actions = []
        for old, slot in found.values():
            value = stored_slots(old, self.rules)[slot]
            reason = f"{slot}: {value} ended, said in {memory.memory_id}"
            # what else it said stays ("I work at Dell and play tennis on Sundays", then "I left Dell")
            actions += supersede(memory, old, self._kept(old, slot, value), reason)
        return actions

    def _candidates(
        self, memory: Memory, found: list[Memory], same_slot: list[Memory], state: dict[str, Memory]
    ) -> list[Candidate]:
        """The ``top_k`` nearest valid memories, then every other valid one holding a slot ``memory`` holds."""
        nearest: dict[str, Candidate] = {}
        for hit in found:
            current = state.get(hit.memory_id, hit)
            if current.status == "valid" and same_speaker(current, memory):
                nearest[hit.memory_id] = (current, hit.scores.get("similarity", 0.0))
        mine = memory.metadata.get(SLOTS_KEY, {})
        others: dict[str, Candidate] = {}
        for other in state.values():  # this batch's own memories are not in the store yet
            if other.status == "valid" and other.target == memory.target and same_speaker(other, memory):
                if other.vector is not None:
                    nearest[other.memory_id] = (other, float(np.dot(other.vector, memory.vector)))
                if mine.keys() & stored_slots(other, self.rules).keys():
                    # a holder of the slot, with its vector or not yet (what a change left of an older memory gets
                    # its vector when the batch is written): compared for contradictions
                    others[other.memory_id] = nearest.get(other.memory_id, (other, 0.0))
        candidates = sorted(nearest.values(), key=lambda c: c[1], reverse=True)[: self.params.top_k]
        seen = {c.memory_id for c, _ in candidates}
        for holder in same_slot:  # found by slot, not by likeness: compared for contradictions only
            current = state.get(holder.memory_id, holder)
            if current.status == "valid" and current.memory_id not in seen and same_speaker(current, memory):
                others.setdefault(current.memory_id, (current, 0.0))
        return candidates + [c for c in others.values() if c[0].memory_id not in seen]

    async def _fill_vectors(self, ctx: OpContext, memories: list[Memory]) -> None:
        """Stored memories that changed only in status, sources or slots keep their vectors: fetched once, here; a
        memory not stored yet without one (a change derived its words, :mod:`flowmem.scoring.supersede`, perhaps
        merged since) is embedded from its words, all together."""
        missing = [m for m in memories if m.vector is None]
        if not missing:
            return
        # Their vectors only (local: from its index), not their records: an expiry of a slot's many holders reads
        # no record it does not use.
        vectors = await self.vector_store.stored_vectors(ctx[WORKSPACE_ID], [m.memory_id for m in missing])
        for memory in missing:
            memory.vector = vectors.get(memory.memory_id)
        unembedded = [m for m in missing if m.vector is None]
        if unembedded:
            texts = list(dict.fromkeys(m.content for m in unembedded))
            embedded = dict(zip(texts, await self.embedding_model.embed(texts, kind="document"), strict=True))
            for memory in unembedded:
                memory.vector = embedded[memory.content]
            ctx.note("embedded_new_words", len(texts))

    def _decide_rules(self, memory: Memory, candidates: list[Candidate]) -> list[MemoryAction]:
        key = content_key(memory.content)
        # A repeat or a paraphrase is one fact at one time: the same words about another day are another event.
        same_time = [(old, similarity) for old, similarity in candidates if not other_days(memory, old)]
        for old, _ in same_time:
            if content_key(old.content) == key:
                if set(memory.source) <= set(old.source):
                    return [MemoryAction(action="skip", memory=old, reason=f"same as {old.memory_id}")]
                return [MemoryAction(action="update", memory=_merge(old, memory, keep_text=True), old=old,
                                     reason=f"the same again, from {', '.join(memory.source)}")]  # fmt: skip
        contradicted = self._contradicted(memory, candidates)
        if contradicted:
            return self._supersede(memory, contradicted)
        mine = stored_slots(memory, self.rules)
        for old, similarity in same_time:
            theirs = stored_slots(old, self.rules)
            if records(memory, old) and not fact_in_common(memory, mine, old, theirs):
                continue  # two turns that only sound alike: each kept as said
            if mine and theirs and mine.keys() != theirs.keys():
                continue  # a hamster's name and a rabbit's: alike in words, two facts
            if not (
                similarity >= self.params.duplicate_similarity
                and same_words(memory, old, self.params.paraphrase_overlap)
                and tells(memory)
                and tells(old)
            ):
                continue
            if not values_differ(memory.content, old.content):
                reason = f"near-duplicate of {old.memory_id} (cosine {similarity:.3f})"
                return [
                    MemoryAction(action="update", memory=_merge(old, memory, keep_text=False), old=old, reason=reason)
                ]
            if restates(memory, old):  # "I'm in year 12 at Holmwood", then "I'm in year 13 at Holmwood": now year 13
                reason = f"restated by {memory.memory_id} with another value (cosine {similarity:.3f})"
                return [*supersede(memory, old, None, reason), MemoryAction(action="add", memory=memory, reason=reason)]
        return [MemoryAction(action="add", memory=memory, reason="new")]

    def _contradicted(self, memory: Memory, candidates: list[Candidate]) -> list[tuple[Memory, str]]:
        """The candidates holding one of ``memory``'s slots with another value, with the first such slot. Facts of
        one message never contradict each other: "We moved to Lisbon, we live in Alfama now" says both at once."""
        mine = stored_slots(memory, self.rules)
        frames = slot_frames(memory.content, mine)
        found = []
        for old, _ in candidates:
            if set(old.source) & set(memory.source) or plan_reached(old, memory):
                continue
            theirs = stored_slots(old, self.rules)
            slots = superseded(theirs, mine)
            if not slots and frames:  # "Long day at Brightwell Insurance" before "first day at Lumen Health"
                analogous = analogous_slots(frames, old.content, theirs)
                slots = superseded(analogous, mine)
                if slots:
                    old = old.model_copy(update={"metadata": {**old.metadata, SLOTS_KEY: {**theirs, **analogous}}})
            if slots:
                found.append((old, slots[0]))
        return found

    def _supersede(self, memory: Memory, contradicted: list[tuple[Memory, str]]) -> list[MemoryAction]:
        """``memory`` replaces the memories it contradicts (policy ``replace``), or is added beside them."""
        if self.params.policy == "keep_both":
            said = ", ".join(f"{old.memory_id} ({slot})" for old, slot in contradicted)
            return [MemoryAction(action="add", memory=memory, reason=f"contradicts {said}; kept both")]
        later = [(old, slot) for old, slot in contradicted if old.created_at > memory.created_at]
        if later:  # an older statement arriving late: stored, already expired
            old, slot = later[0]
            stale = expired_by(memory, by=old, at=memory.created_at)
            return [MemoryAction(action="add", memory=stale, reason=f"{slot}: older than {old.memory_id}")]
        actions = []
        mine = stored_slots(memory, self.rules)
        for old, slot in contradicted:
            value = stored_slots(old, self.rules)[slot]
            now = mine.get(slot) or ", ".join(f"{k} {v}" for k, v in mine.items() if slot in ended_slots({k: v}))
            reason = f"{slot}: replaced by {memory.memory_id} ({value} → {now})"
            actions += supersede(memory, old, self._kept(old, slot, value), reason)
        replaced = ", ".join(old.memory_id for old, _ in contradicted)
        actions.append(MemoryAction(action="add", memory=memory, reason=f"{contradicted[0][1]}: replaces {replaced}"))
        return actions

    def _kept(self, old: Memory, slot: str, value: str) -> str | None:
        """What else ``old`` said, once the ``value`` its ``slot`` held is gone (``None``: nothing)."""
        if "@" in slot:
            # Someone else's fact is mostly said in passing, in a statement of something else ("Visited Nana at her
            # house in Whitby today", then Nana moved): that stays, only the replaced value leaves it — or, when the
            # value had a clause of its own, the other clauses, said of their person ("My sister Leah lives in Leeds
            # and works at Acme" → "My sister Leah works at Acme").
            kept = remainder(old.content, subject_terms(value))
            if kept is None:
                kept = with_owner(
                    remainder(old.content, subject_terms(value), whole=True, breaks=SEGMENT_BREAK), old.content
                )
            return kept
        # The user's own fact is a clause of what was said, not all of it (a turn says several things:
        # 北漂第三年，在望京…做运营，住在天通苑; "Olu has moved to the Berlin office, so my new manager is Hannah
        # Reyes"): the clauses that speak of the replaced value go, the others stay current.
        about = subject_terms(value) | subject_terms(slot.partition(":")[2])
        kept = remainder(old.content, about, whole=True, breaks=SEGMENT_BREAK)
        if kept and slot in self.rules.slots_of(kept, named(old)):
            return None  # the value is said in other words (因为我吃素 is "vegetarian"): nothing is left
        return kept

    async def _decide_llm(
        self, ctx: OpContext, memory: Memory, candidates: list[Candidate]
    ) -> list[MemoryAction] | None:
        if not candidates:
            return None
        prompt = load_prompt("contra_repeat")
        listing = "\n".join(f"{i}. [{c.created_at:%Y-%m-%d}] {c.content}" for i, (c, _) in enumerate(candidates))
        user = prompt.user.format(new=f"[{memory.created_at:%Y-%m-%d}] {memory.content}", existing=listing)
        reply = await ask(self.llm, ctx, prompt.system, user, json_mode=True, max_tokens=100)
        decision = _llm_decision(parse_json(reply.text), len(candidates))
        if decision is None:
            ctx.warn(f"LLM decision for {memory.memory_id} was unusable; decided by the rules")
            return None
        action, index = decision
        if action == "add" or index is None:
            return [MemoryAction(action="add", memory=memory, reason="LLM: new")]
        old = candidates[index][0]
        if action in ("skip", "update") and other_days(memory, old):  # alike, but another day: another event
            return [MemoryAction(action="add", memory=memory, reason=f"LLM: like {old.memory_id}, on another day")]
        if action == "skip":
            return [MemoryAction(action="skip", memory=old, reason=f"LLM: already known as {old.memory_id}")]
        if action == "update":
            return [MemoryAction(action="update", memory=_merge(old, memory, keep_text=False), old=old,
                                 reason=f"LLM: updates {old.memory_id}")]  # fmt: skip
        expired = old.model_copy(update={"status": "expired", "updated_at": memory.created_at})
        return [
            MemoryAction(action="expire", memory=expired, old=old, reason=f"LLM: contradicted by {memory.memory_id}"),
            MemoryAction(action="add", memory=memory, reason=f"LLM: replaces {old.memory_id}"),
        ]


def _as_now(memory: Memory, stored: list[Memory], state: dict[str, Memory]) -> list[Memory]:
    """The older memories ``memory`` may change: the stored ones found for it and this batch's own, each as the
    decisions before it left them."""
    olds = {m.memory_id: state.get(m.memory_id, m) for m in stored}
    olds.update({m.memory_id: m for m in state.values() if m.memory_id != memory.memory_id})
    return list(olds.values())


@lru_cache(maxsize=32)
def _rules(slots: tuple[tuple[str, tuple[str, ...]], ...]) -> SlotRules:
    # No slots of its own: the built-in rules, the object the store's keys read with too (one memory of what it read)
    return SlotRules(dict(slots)) if slots else DEFAULT_RULES


def _frozen(slots: dict[str, list[str]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple(sorted((name, tuple(patterns)) for name, patterns in slots.items()))


def same_words(a: Memory, b: Memory, overlap: float) -> bool:
    """Whether ``a`` and ``b`` say the same thing in mostly the same content words (stop words left out).

    A near-duplicate by the vectors alone merges turns that only sound alike: small embedding models put every
    "Thanks, Mel! Your words mean a lot…" turn above 0.93 of the next, and LoCoMo's "I just signed up for a
    pottery class" was replaced by "I'm getting creative too, just learning the piano". A repeat or a paraphrase
    of one fact keeps most of its words (the names, the things, the places) whatever the order and the filler:
    at least ``overlap`` of the shorter text's content words are the other's too."""
    if overlap <= 0:
        return True
    mine, theirs = _content_words(_unaddressed(a)), _content_words(_unaddressed(b))
    if not mine or not theirs:
        return False
    if len(mine & theirs) < overlap * min(len(mine), len(theirs)):
        return False
    # Rewording leaves words out or adds some; two texts that each say several things the other does not are two
    # facts ("my uncle's ten-year-old Jetta is still going strong", then "my uncle bought a BYD for my aunt, he still
    # drives the Jetta"), however many words they share.
    return min(len(theirs - mine), len(mine - theirs)) <= _OWN_WORDS


_CJK_PAIR = re.compile(r"^[\u3400-\u9fff]{2,}$")
_OWN_WORDS = 2  # content words of its own each of two paraphrases may have, on one side at least
# A name said to someone, set off as English sets off an address: after a greeting or thanks ("Hey Mel!", "Thanks,
# Mel.", "Wow Caroline,") or after a comma before a comma or an exclamation ("…, Caroline, that's", "Sure, Jon!"); not
# before a full stop ("I moved to Berlin, Germany.").
_NAME = r"[A-Z][\w'-]*"
_ADDRESS = re.compile(
    rf"\b(?i:hey|hi|hello|thanks|thank you|bye|congrats|wow|yeah|yes|oh|go),?\s+{_NAME}(?=\s*[,!?.…]|$)"
    rf"|,\s*{_NAME}(?=\s*[,!?])"
)


def plan_reached(old: Memory, new: Memory) -> bool:
    """Whether ``old`` told a plan (its event after the day it was said: "下个月要 relocate 去 Singapore", "my last day
    is March 19") whose time has come by ``new``: what ``new`` says now is where the plan led, and the plan stays true
    as what was planned — an event, not a state ``new`` replaces."""
    said, when = old.message_time or old.created_at, old.event_time
    if when is None or not (when.date() > said.date() and when <= (new.message_time or new.created_at)):
        return False
    return not recurring_day(old.content)  # 周二周四学钢琴, "choir is Thursday evenings": a habit, no plan


def restates(new: Memory, old: Memory) -> bool:
    """Whether ``new``, a near-duplicate of ``old`` in words but with another value of one kind
    (:func:`flowmem.scoring.values.differ`), says what is now true in place of it: both tell a state, not an event or a
    plan (:func:`flowmem.scoring.aspect.tells_state`: "I run 5k three times a week" then "I run 10k three times a week"
    is the run now; "ran 5k with Marcus" then "ran 10k with Marcus" are two runs), by the same speaker, said later."""
    return (
        old.created_at <= new.created_at
        and same_speaker(new, old)
        and tells_state(new.content)
        and tells_state(old.content)
        and not one_day_of_habit(new.content, old.content)  # "swim every Wednesday", then "swim this Thursday"
    )


def records(a: Memory, b: Memory) -> bool:
    """Whether ``a`` and ``b`` are both the record of a turn: a ``conversation`` memory, the words a message said."""
    return a.memory_type == "conversation" and b.memory_type == "conversation"


def fact_in_common(a: Memory, slots_a: dict[str, str], b: Memory, slots_b: dict[str, str]) -> bool:
    """Whether two turns state one fact the write path reads: a slot of the same kind ("I'm vegetarian" and "I don't
    eat meat, I'm a vegetarian": the diet), an event on the same days (both have an event time; the caller has left out
    events on other days), or a value both name (:func:`flowmem.scoring.values.find_values`: a name, a place, an
    e-mail address, a number — not the name of the one spoken to). Issue 23 point 1: the turn is the record, the facts
    are its keys. A near-duplicate merge puts one turn's words in place of the other's, the earlier turn kept only in
    the merged memory's key: right for one fact said twice, wrong for two turns that only sound alike. On LoCoMo dev's
    summary ingest such merges folded 31 turns into 23 others, one fact said again among them (an LGBTQ art show
    next month), the others turns that only sound alike ("Researching adoption agencies — it's been a dream to have a
    family…" into "My goal is to give kids a loving home…", said two turns later: the evidence of 'What did Caroline
    research?' was then found by neither its vector nor its words; most of the others thanks and encouragement), each
    merged memory taking the places of all its turns at the rank of one."""
    if slots_a.keys() & slots_b.keys() or (a.event_time is not None and b.event_time is not None):
        return True
    return bool(_values(_unaddressed(a)) & _values(_unaddressed(b)))


@lru_cache(maxsize=4096)
def _values(text: str) -> frozenset[tuple[str, str]]:
    # Remembered: a stored memory is compared with every new memory it is a candidate of, each new one with its top_k.
    return frozenset((value.kind, value.norm) for value in find_values(text))


def tells(memory: Memory) -> bool:
    """Whether ``memory``'s words tell something (:func:`flowmem.scoring.acts.dialogue_act`: not a question, not
    mostly said to the listener). Only what tells is a fact a paraphrase can repeat: a question or a reaction is the
    record of what was said then, kept as said, however alike the next one sounds ("Wow, that looks amazing! What
    inspired it?" asked of two paintings weeks apart). On LoCoMo dev's summary ingest, near-duplicate merges of
    such turns crowded the evidence out of the top 10: one memory of five reactions counts as five turns."""
    return dialogue_act(_unaddressed(memory)) == "statement"


def _unaddressed(memory: Memory) -> str:
    """``memory``'s words without who says them and whom they are said to: a turn's ``"<speaker>: "`` label and the
    names it addresses the listener by. Every turn of one chat carries them, so they made turns that share nothing
    else "paraphrases": of the 118 near-duplicate merges of LoCoMo dev's summary ingest, 72 shared only those and a
    filler word ("Caroline: Hey Mel! Good to see you!" folded into "Caroline: Wow, Mel. That must've been
    breathtaking!")."""
    text = memory.content
    speaker = memory.metadata.get(SPEAKER)
    if isinstance(speaker, str) and speaker and text.startswith(f"{speaker}:"):
        text = text[len(speaker) + 1 :]
    return _ADDRESS.sub(lambda m: m.group(0)[0] if m.group(0).startswith(",") else " ", text)


def _content_words(text: str) -> set[str]:
    """The text's search terms; for Chinese its characters only (the terms' character pairs would make a paraphrase,
    我吃素 of 我是素食者, share almost none)."""
    return {term for term in query_terms(text) if not _CJK_PAIR.match(term)}


def other_days(a: Memory, b: Memory) -> bool:
    """Whether ``a`` and ``b`` are about events on days that do not overlap (both must have an event time):
    "I went climbing" said of 2 March and of 16 March is two climbing days, however alike the words — or one is a
    habit on a weekday and the other one day ("I swim every Wednesday", "pool's shut this Wednesday")."""
    if recurring_day(a.content) != recurring_day(b.content) and (a.event_time is None) != (b.event_time is None):
        return True
    days_a, days_b = _event_days(a), _event_days(b)
    if days_a is None or days_b is None:
        return False
    return days_a[1] < days_b[0] or days_b[1] < days_a[0]


def _event_days(memory: Memory) -> tuple[date, date] | None:
    start = memory.event_time
    if start is None:
        return None
    end = memory.event_end or start
    return start.date(), end.date()


def _merge(old: Memory, new: Memory, *, keep_text: bool) -> Memory:
    """``old`` brought up to date by ``new``: newer wording (unless ``keep_text``), sources joined, times known.

    Nothing said is lost: the wording replaced (and an image caption the new turn's replaces) joins the memory's
    earlier wordings (``metadata["said_before"]``, in its expanded key), so the merged turn stays found by its words
    (LoCoMo dev, summary ingest: merges had taken the words of evidence turns, D2:8 "researching adoption agencies"
    into D2:10; with them keyed, R@10 0.748 → 0.759)."""
    update: dict[str, Any] = {
        "source": list(dict.fromkeys([*old.source, *new.source])),
        "keywords": list(dict.fromkeys([*old.keywords, *new.keywords]))[:10],
        "updated_at": max(old.updated_at, new.created_at),
    }
    if not keep_text:
        update.update(content=new.content, vector=new.vector, when_to_use=new.when_to_use or old.when_to_use)
        # The slots and an LLM's key belong to the words: the new words' replace the old words'.
        metadata = {k: v for k, v in old.metadata.items() if k != LLM_KEY}
        metadata.update({k: new.metadata[k] for k in (SLOTS_KEY, LLM_KEY, CAPTION) if k in new.metadata})
        earlier = said_before(old, new.content, new.metadata.get(CAPTION))
        if earlier:
            metadata[SAID_BEFORE] = earlier
        if metadata != old.metadata:
            update["metadata"] = metadata
        if new.event_time is not None:
            update.update({k: getattr(new, k) for k in type(new).model_fields if k.startswith("event_")})
    return old.model_copy(update=update)


def _llm_decision(data: Any, count: int) -> tuple[str, int | None] | None:
    if not isinstance(data, dict):
        return None
    action = str(data.get("action", "")).strip().lower()
    if action not in ("add", "update", "expire", "skip"):
        return None
    target = data.get("target", data.get("existing"))
    if action == "add":
        return action, None
    try:
        index = int(str(target).strip())
    except (TypeError, ValueError):
        return None
    return (action, index) if 0 <= index < count else None


def _of_them(text: str, value: str, old_text: str) -> bool:
    """Whether the ending of ``value`` said in ``text`` may be of whom ``old_text`` speaks: said of no one else, or of
    someone ``old_text`` names ("Leah left Dell" ends nothing of "I work at Dell"; "Luna died" ends "I have a cat
    called Luna")."""
    at = text.lower().find(value.lower())
    who = someone_else_at(text, max(at, 0))
    return who is None or names_person(old_text, who)


def _worded(memory: Memory, text: str) -> Memory:
    """``memory`` with ``text`` for its words (itself when they are its words): its words as
    :func:`~flowmem.scoring.referents.resolved` reads them, what its changes and slots are read from."""
    return memory if text == memory.content else memory.model_copy(update={"content": text})
