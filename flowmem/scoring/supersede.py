"""Applying what a new memory changes (:mod:`flowmem.scoring.change`) to the older memories it is about.

For each change a new memory states and each older valid memory of the same person it speaks of:

- ``ended``: the older memory is expired (``superseded_by`` the new one); what else it said, in clauses not
  about the ended thing, stays current as a memory of its own (derived from it, same time and sources).
- ``replaced`` / ``corrected``: the older memory is expired and its words with the new value written in
  become a memory of their own ("Eli's soccer practice is Thursdays 5pm at Lakeview fields"), with the event
  time read again from those words as of when the older one was said. A correction applies to the latest
  older memory holding a value of its kind, said within :data:`CORRECTION_WINDOW` before it (a week,
  :data:`SAID_WRONG_WINDOW`, when it says outright that something was wrong or names the wrong value), and to the
  ones before that which said the same wrong value (an assistant's echo of the user's words).

An older memory that is itself newer than the change, already expired, or from the same message is left alone.
Each derived memory names what it came from (``metadata["derived_from"]``) and what changed it
(``metadata["changed_by"]``); its history event says which words changed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import lru_cache

from flowmem.schema.actions import MemoryAction
from flowmem.schema.memory import Memory
from flowmem.scoring.affirmed import denial
from flowmem.scoring.change import (
    RECOVERED,
    Change,
    denies,
    holds,
    holds_chars,
    read_changes,
    remainder,
    replaced_names,
    replaced_values,
    rewrite,
    says_wrong,
    speaks_of_someone,
    subject_terms,
    ties,
)
from flowmem.scoring.derive import at_time, event_time, event_times, keywords_of, with_event_time
from flowmem.scoring.keys import LLM_KEY, SAID_BEFORE, SPEAKER, said_before
from flowmem.scoring.others import for_someone_unnamed, names_person, someone_else_at, speaker_at
from flowmem.scoring.people import PERSON_WORDS, ZH_KIN_WORD
from flowmem.scoring.restated import RESTATES
from flowmem.scoring.slots import DEFAULT_RULES, SLOTS_KEY, named
from flowmem.scoring.values import Value, find_values, numbers_differ, same
from flowmem.timeexpr import ExtractedTime, expression_spans
from flowmem.timeexpr.clauses import SEGMENT_BREAK
from flowmem.timeexpr.tense import moved_objects, moved_to

CORRECTION_WINDOW = timedelta(hours=24)
SAID_WRONG_WINDOW = timedelta(days=7)
DERIVED_FROM, CHANGED_BY = "derived_from", "changed_by"


def expired_by(memory: Memory, *, by: Memory, at: datetime) -> Memory:
    """``memory`` superseded by ``by``: expired (never deleted), saying by which memory."""
    metadata = {**memory.metadata, "superseded_by": by.memory_id}
    return memory.model_copy(
        update={"status": "expired", "updated_at": max(memory.updated_at, at), "metadata": metadata}
    )


def same_speaker(a: Memory, b: Memory) -> bool:
    """Whether ``a`` and ``b`` were said by the same person, as far as their metadata tells (the turn's ``speaker``,
    else the message's ``name``; unknown on either side: yes). What one person says of themselves neither repeats
    nor supersedes what another said of themselves: in a chat ingested whole, "The store's doing great" is Gina's,
    and Jon's news does not end it."""
    for key in (SPEAKER, "name"):
        mine, theirs = _said_by(a, key), _said_by(b, key)
        if mine and theirs:
            return bool(str(mine).strip().casefold() == str(theirs).strip().casefold())
    return True


def _said_by(memory: Memory, key: str) -> object:
    """Who said ``memory`` by ``key``; nobody known for the assistant's restatement of the user's words (what it says
    is the user's, and the user's later words supersede it: :mod:`flowmem.scoring.echo`)."""
    return None if memory.metadata.get(RESTATES) else memory.metadata.get(key)


def changes_of(memory: Memory) -> list[Change]:
    """The changes ``memory``'s words state."""
    return read_changes(memory.content)


def apply_changes(memory: Memory, changes: Sequence[Change], olds: Sequence[Memory]) -> list[MemoryAction]:
    """The expirations and derived memories ``memory``'s ``changes`` make of ``olds`` (valid memories of the
    same person, any order); one decision per older memory at most."""
    latest_first = sorted(_said_before(memory, olds), key=lambda m: (m.created_at, m.memory_id), reverse=True)
    actions: list[MemoryAction] = []
    done: set[str] = set()
    for change in changes:
        wrong: set[tuple[str, str]] | None = None  # the values a correction found wrong in the latest statement
        for old in latest_first:
            if old.memory_id in done:
                continue
            if wrong is not None:  # after the latest: only a statement of the same wrong value
                said = _wrong_values(old.content, change)
                if not said or not all(any(same(Value(*s, 0, 0), Value(*w, 0, 0)) for w in wrong) for s in said):
                    continue  # (the same value said another way: "the 14th" then "May 14")
            decided = _apply(memory, change, old)
            if decided:
                actions.extend(decided)
                done.add(old.memory_id)
                if change.kind == "corrected":
                    # A correction corrects the latest statement it fits, and the ones before it that said the same
                    # wrong value (the user's own words and the assistant's echo of them: "Noted: half a cup twice a
                    # day" then "oops, one cup"); nothing else.
                    wrong = _wrong_values(old.content, change)
                    if not wrong:
                        break
    return actions


def _said_before(memory: Memory, olds: Sequence[Memory]) -> list[Memory]:
    """The valid memories of ``olds`` that ``memory`` may change: of its person, said by its speaker, no later, and
    from other messages."""
    return [
        old
        for old in olds
        if old.status == "valid"
        and old.memory_id != memory.memory_id
        and old.target == memory.target
        and old.created_at <= memory.created_at
        and not set(old.source) & set(memory.source)
        and same_speaker(old, memory)
    ]


def moved_plan(memory: Memory, olds: Sequence[Memory]) -> list[MemoryAction]:
    """What ``memory`` does to the older statements of a plan it moves to another day ("hospital rang, the MRI's been
    moved to Monday the 16th", "boiler man rang, he's coming tomorrow instead", 医院说胃镜提前到明天了): each valid one
    of the same speaker, still to come when the move was said, on another day, that names everything the moving words
    name of the thing moved (:func:`_moved_thing`) is expired by it — the moving statement holds the new day. The
    words the rules read as values (a weekday, a date) are rewritten by :func:`apply_changes`; this reads the days the
    two times fall on, so a move to "tomorrow", "a week later" or 下周一 is read too. Something else moved the same day
    ("the hygienist moved my cleaning to Friday", 我妈的复查改到周四了 after 我周五去医院复查) ends nothing."""
    moved = memory.event_time
    if moved is None:
        return []
    thing = _moved_thing(memory)
    if thing is None:
        return []
    actions: list[MemoryAction] = []
    for old in _said_before(memory, olds):
        planned = old.event_time
        if (
            planned is None
            or planned.date() == moved.date()
            or planned.date() < memory.created_at.date()  # over before the move was said: not this plan
            or recurring_day(old.content)
        ):
            continue
        named = _without_times(old)
        if all(term in named or term in old.content for term in thing):
            reason = f"moved by {memory.memory_id}: {' '.join(sorted(thing))} now on {moved:%Y-%m-%d}"
            actions += supersede(memory, old, None, reason)
    return actions


# "… instead", said of a time: "he's coming tomorrow instead", "Friday instead", "instead of Monday it's Wednesday"
_INSTEAD_TIME = re.compile(r"\binstead\b|改成|换成|改为", re.I)
# Words of moving a time, and of the verbs around them: no part of the name of what moved
_MOVE_WORDS = frozenset(
    ("move", "moved", "moving", "moves", "push", "pushed", "pushing", "postpone", "postponed", "postponing",
     "reschedule", "rescheduled", "bring", "brought", "forward", "delay", "delayed", "bump", "bumped", "shift",
     "shifted", "change", "changed", "switch", "switched", "now", "instead", "got", "get", "been", "is", "are", "was",
     "were", "has", "have", "had")
)  # fmt: skip
_SEGMENT = re.compile(r"[^,;.!?，。！？；\n]+")
_ZH_MOVE_AT = re.compile(r"(?:改|推迟|挪|延期|延后|顺延|提前|调|换)(?:到|在|成|为)?")


def _moved_thing(memory: Memory) -> frozenset[str] | None:
    """The words naming what ``memory`` moves to another time: in English, the terms of the piece of the sentence that
    moves it, its times and the words of moving aside ("the MRI's been moved to Monday": {mri}; "he's coming tomorrow
    instead": {coming}); in Chinese, the word just before the verb that moves it and whose it is when 的 says so
    (胃镜提前到明天: {胃镜}; 我妈的复查改到周四: {复查, 我妈}). ``None``: it moves nothing, or names nothing moved."""
    text = memory.content
    at = [*moved_to(text), *(m.start() for m in _INSTEAD_TIME.finditer(text))]
    if not at:
        return None
    if not text.isascii():
        verb = _ZH_MOVE_AT.search(text)
        if verb is None or verb.start() < 2:
            return None
        before = text[: verb.start()]
        thing = {before[-2:]}
        if len(before) >= 5 and before[-3] == "的":  # 我妈的复查: whose it is
            thing.add(before[-5:-3])
        return frozenset(thing)
    segment = next((m for m in _SEGMENT.finditer(text) if m.start() <= at[0] <= m.end()), None)
    if segment is None:
        return None
    # what the verb moves when it names it ("moved Tom's surgery forward to …"), else what comes before the verb or
    # the cue in its piece of the sentence ("the MRI's been moved to …", "he's coming tomorrow instead")
    objects = [(verb, what) for verb, what in moved_objects(text) if segment.start() <= verb < segment.end()]
    named = [what for _, what in objects if subject_terms(what) - _MOVE_WORDS]
    verb_at = min([verb for verb, _ in objects] or [at[0]])
    masked = _times_masked(memory)  # the times as read in the whole text ("xmas do now thurs 11th": no Christmas)
    if named:
        piece = named[0]
        at_object = text.find(piece, verb_at)
        piece = masked[at_object : at_object + len(piece)] if at_object >= 0 else piece
    else:
        piece = masked[segment.start() : max(verb_at, segment.start())] or masked[segment.start() : segment.end()]
    piece = re.sub(r"^.*\b(?:and|so|but|then)\b", " ", piece, flags=re.I)  # the clause that moves it, not one before
    terms = frozenset(t for t in subject_terms(piece) if t not in _MOVE_WORDS)
    return terms or None


def _times_masked(memory: Memory) -> str:
    """``memory``'s words with each of its time expressions blanked out (the same length: places stay)."""
    text = memory.content
    found = event_times(text, memory.message_time or memory.created_at)
    for start, end in expression_spans(text, found):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _without_times(memory: Memory) -> frozenset[str]:
    """The subject terms of ``memory``'s words outside its time expressions."""
    return subject_terms(_times_masked(memory))


def _wrong_values(old_text: str, change: Change) -> set[tuple[str, str]]:
    return {(old.kind, old.norm) for old, _ in replaced_values(old_text, change)} if change.values else set()


def ends_too(old_text: str, change: Change) -> bool:
    """Whether ``old_text`` itself says that what ``change`` ends has ended: it agrees, and nothing it says is current
    to end ("Lost my job as a banker yesterday, so I'm gonna start my own business", then "since I lost my job, it's
    been tough" — LoCoMo dev, summary ingest: 3 turns telling of a lost job were expired by a later mention of it,
    one of them the evidence of "How long did it take for Jon to open his studio?")."""
    if any(c.kind == "ended" and c.about & change.about for c in read_changes(old_text)):
        return True
    # "Losing my job was hard", "After losing my job, I…": the loss told as a thing that happened (not feared: "scared
    # of losing my job"); LoCoMo dev's summary ingest expired three such turns by a later "since I lost my job".
    return any(m.group("what").lower() in change.about for m in _LOSING.finditer(old_text))


_LOSING = re.compile(
    r"(?<!\bof )(?<!\babout )(?<!\bto )(?<!\bwithout )\blosing\s+(?:my|his|her|their|our)\s+(?P<what>\w+)", re.I
)


def _named_or_all(text: str, about: frozenset[str]) -> frozenset[str]:
    """The terms of ``about`` that ``text`` says as a name, else all of them: "lost my job at Door Dash" ends what
    names Door Dash, not every statement with the word "job" in it ("Searching for the perfect dance studio's a tough
    job" — LoCoMo dev); "sold the car" has no name, and ends what holds "car"."""
    named = frozenset(t for v in find_values(text) if v.kind == "name" for t in subject_terms(v.norm)) & about
    return named or about


def _still_holds_ended_slot(old: Memory, about: frozenset[str], kept: str) -> bool:
    """Whether ``kept`` (what is left of ``old``) still states a slot of ``old`` whose value was the ended thing: its
    words broken, not a fact of their own ("I'm in halls at Cardiff Uni" → "I'm at Cardiff Uni" states no home)."""
    slots = old.metadata.get(SLOTS_KEY)
    if not isinstance(slots, dict):
        return False
    ended = {slot for slot, value in slots.items() if isinstance(value, str) and about & subject_terms(value)}
    return bool(ended & DEFAULT_RULES.slots_of(kept, named(old)).keys())


def _apply(memory: Memory, change: Change, old: Memory) -> list[MemoryAction]:
    if _of_another_person(memory.content, change, old.content):
        return []
    if change.affirmed is not None:  # "bought a car!": only "I don't have a car" ends
        denied = denial(old.content, change.affirmed)
        if denied is None:
            return []
        kept = remainder(old.content, subject_terms(denied) or change.about, whole=True, breaks=SEGMENT_BREAK)
        return supersede(memory, old, kept, f"affirmed: '{change.cue}', said in {memory.memory_id}", keep_words=False)
    if change.kind == "ended" and change.gained:  # "she can finally work": only "she can't work yet" ends
        if not any(denies(old.content, doing) for doing in change.about):
            return []
        kept = remainder(old.content, change.about)
        return supersede(memory, old, kept, f"gained: '{change.cue}', said in {memory.memory_id}", keep_words=False)
    if change.kind == "ended":
        said_of = holds(old.content, _named_or_all(memory.content, change.about)) or holds_chars(old.content, change)
        if not said_of or ends_too(old.content, change) or (change.seller and not holds(old.content, change.seller)):
            return []
        # someone else stopped: not what the speaker says of themselves alone ("I smoke", "my husband quit smoking")
        # …nor what is said of another of their people ("my sister is a nurse", "her friend from uni quit nursing")
        if change.doer and not holds(old.content, change.doer):
            named_by_tie = change.doer <= ties(memory.content) and ties(old.content)
            if not speaks_of_someone(old.content) or named_by_tie:
                return []
        # What a seller gave away was theirs: their part in it ends (the landlord), not the thing (the flat); what a
        # retiree left was their work: what was said of it ends, not what was said of them.
        if change.keeps_holder:  # every piece speaking of the work goes ("Omar is my brother-in-law, he works at…")
            kept = remainder(old.content, change.about, whole=True, breaks=SEGMENT_BREAK)
        else:  # a condition over goes with every clause said of it ("sprained ankle, on crutches" → "on crutches")
            ended = change.seller or change.about
            kept = remainder(old.content, ended, whole=bool(RECOVERED.fullmatch(change.cue)))
            if kept and _still_holds_ended_slot(old, change.about, kept):
                # a fact whose value was the ended thing, still read from what is left ("staying in a student hall
                # called Murray Hall", then "moved out of Murray Hall": not "staying in a student called"), goes whole
                kept = remainder(old.content, ended, whole=True)
        reason = f"ended: '{change.cue}' {' '.join(sorted(change.about))}, said in {memory.memory_id}"
        return supersede(memory, old, kept, reason, keep_words=False)
    if change.kind == "corrected" and not change.values:  # what it names was wrong: the latest statement of it
        held = change.about & subject_terms(old.content)
        if (held != change.about) if change.negated else len(held) < 2:  # named (all of what was denied), not touched
            return []
        reason = f"corrected: '{change.cue}' {' '.join(sorted(change.about))}, said in {memory.memory_id}"
        return supersede(memory, old, None, reason)
    # A correction corrects what was said lately: the older words' time is when they last changed (a statement written
    # anew with a value the day before is as recent as the statement that gave it the value)
    if change.kind == "corrected" and memory.created_at - max(old.created_at, old.updated_at) > _window(memory, change):
        return []
    if change.kind == "replaced" and one_day_of_habit(memory.content, old.content):
        return []  # "swim every Wednesday", then "pool's shut this Wednesday, went Thursday": the habit goes on
    written = rewrite(old.content, memory.content, change)
    if written is None and change.kind == "corrected" and _renumbered(memory, change, old):
        return supersede(memory, old, None, f"corrected: '{change.cue}', numbers of {memory.memory_id}")
    if written is None:
        names = replaced_names(old.content, change)
        if not names:
            return []
        reason = f"{change.kind} by {memory.memory_id} ('{change.cue}'): no longer {' '.join(sorted(names))}"
        return supersede(memory, old, remainder(old.content, names, whole=True), reason)
    reason = f"{change.kind} by {memory.memory_id} ('{change.cue}'): now '{written}'"
    when = _moved_day(memory, old, change) or _in_force(memory, old, written)
    return supersede(memory, old, written, reason, when=when)


def _of_another_person(text: str, change: Change, old_text: str) -> bool:
    """Whether ``change``, said in ``text``, is said of someone ``old_text`` is not about.

    - A new value said in a clause that opens with another person and their own doing, before any possessive or
      report ("Leah lives in Austin now", not "coach moved Eli's practice to…" or "Vet says Pepper should…"), changes
      only what names them: nothing of "I live in Leeds"; "Yoga moved to Fridays" is of yoga, which "I go to yoga on
      Mondays" names.
    - A state the speaker says of themselves ("I'm not vegetarian anymore") ends nothing of words that are all someone
      else's ("My sister Leah's vegetarian"), unless a name both say is what ended ("we had to put Rex down", "my
      wife Ana has a dog named Rex"); nor does one said of "her" or "him" alone ("first day at Globex for her") change
      what the speaker said of themselves.

    A correction corrects what was said last, whoever it was about ("oops, Tuesdays I mean")."""
    if change.kind == "corrected":
        return False
    at = _where(text, change)
    who = someone_else_at(text, at)
    starts = [m.start() for m in re.finditer(r"[^.!?;\n]+", old_text)]  # the older words' sentences
    if who is not None:
        # an ending is theirs when they say what ended ("Leah quit Dell", "Tom quit smoking"; not "baby girl arrived",
        # which ends a pregnancy it does not name: read where it is decided, _apply); a doer acting on another's thing
        # is not its owner
        places = [v.start for v in change.values] or [at]
        if change.kind == "ended":
            if not subject_terms(text) & change.about:
                return False
        elif not all(_own_doing(text, who, place) for place in places):
            return False
        if names_person(old_text, who):
            return False
        # older words of someone said by their tie alone ("my daughter plays violin") may be of the one now named
        # ("Ella's given up the violin"): only the speaker's own words and another's by another name are not
        theirs = {someone_else_at(old_text, start) for start in starts} - {None}
        if not theirs:  # the speaker's own words, or no one's said
            return any(speaker_at(old_text, start) for start in starts)
        return not any(person in PERSON_WORDS or ZH_KIN_WORD.fullmatch(person) for person in theirs if person)
    if not speaker_at(text, at):
        return for_someone_unnamed(text, at) and all(
            speaker_at(old_text, start) and someone_else_at(old_text, start) is None for start in starts
        )
    if not starts or any(someone_else_at(old_text, start) is None for start in starts):
        return False
    shared = {v.norm for v in find_values(text) if v.kind == "name"} & {
        v.norm for v in find_values(old_text) if v.kind == "name"
    }
    return not shared & change.about and not any(v.norm in shared for v in change.values)


def _own_doing(text: str, who: str, at: int) -> bool:
    """Whether the words from ``who`` (opening the sentence) up to ``at`` are their own doing in one clause: no break,
    no thing of another's or of no one said ("moved Eli's practice", "moved our team", "put the rent up": whose it is,
    the older words tell) and no report ("says", "emailed")."""
    opened = text.lower().rfind(who, 0, at + 1)
    between = text[opened + len(who) : at] if opened >= 0 else ""
    return _NOT_OWN.search(between) is None


_NOT_OWN = re.compile(
    r"[,;:—]|\b\w+['’]s\s+(?!(?:been|got|gone|just|now|at|in|a|an|the)\b)[a-z]|\b(?:my|our|his|her|their|your|the|this|that)\b"
    r"|\b(?:says?|said|told|tells|emailed|texted|rang|called|reckons|thinks|wants|asked|suggested|recommended)\b",
    re.IGNORECASE,
)


def _where(text: str, change: Change) -> int:
    """Where in ``text`` the change is said: its first new value, else its cue, else the start."""
    if change.values:
        return change.values[0].start
    return max(text.lower().find(change.cue.lower()), 0) if change.cue else 0


def _renumbered(memory: Memory, change: Change, old: Memory) -> bool:
    """A correction that says again every named thing of ``old`` with other bare numbers ("my new address is 14 Elm
    Road", then "typo: 41 Elm Road"): the numbers were what was wrong."""
    names = {v.norm for v in change.values if v.kind == "name"}
    said = {v.norm for v in find_values(old.content) if v.kind == "name"}
    if not names or not names <= said or len(names) != len(change.values):
        return False
    beside = [_numbered(text, name) for name in names for text in (old.content, memory.content)]
    return all(beside) and numbers_differ(" ".join(beside[0::2]), " ".join(beside[1::2]))


def _numbered(text: str, name: str) -> str:
    """The number said right beside ``name`` in ``text`` ("14 Elm Road", "flat 3B, Elm Court": "14"), else ''."""
    found = re.search(rf"(\d+)\w?\s*,?\s*{re.escape(name)}|{re.escape(name)}\s*,?\s*(?:no\.?\s*)?(\d+)", text, re.I)
    return (found.group(1) or found.group(2)) if found else ""


def _in_force(memory: Memory, old: Memory, written: str) -> ExtractedTime | None:
    """When the new value holds from, for older words written anew with it that name no time of their own: the time the
    change names ("rent going up to 1525 from feb 1" makes "rent went thru, 1525 a month" a fact of 1 February, not of
    the day the old rent was paid). ``None``: the change names no time (the words' own reading stands)."""
    if memory.event_time is None or event_time(written, old.message_time or old.created_at) is not None:
        return None
    found = event_times(memory.content, memory.message_time or memory.created_at)
    return found[0] if found else None


_DAYS = frozenset({"weekday", "date"})
# A day that recurs: "every Monday", "each Tuesday", "Mondays", 每周一, 每个礼拜三.
_RECURRING = re.compile(r"\b(?:every|each)\s+\S+$|days\.?$|每", re.I)


@lru_cache(maxsize=4096)
def recurring_day(text: str) -> bool:
    """Whether ``text`` names a day that recurs, not one day: "every Monday", "Tuesdays", "Thursday evenings", a list
    of weekdays ("mon + wed", 周二周四), 每周三."""
    days = [v for v in find_values(text) if v.kind == "weekday"]
    return len(days) > 1 or any(
        "," in day.norm
        or _RECURRING.search(text[max(0, day.start - 8) : day.end])
        or re.match(r"\s*(?:mornings|afternoons|evenings|nights)\b", text[day.end :], re.I)
        for day in days
    )


# One day of a habit, not the habit: "this Wednesday", "this week", 这周三, "today only" — unless from then on ("from
# this week", 这周开始, 从下周起).
_ONE_DAY = re.compile(
    r"\b(?:this\s+(?:week|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*)|today|tonight)\b"
    r"|(?:这|本)(?:个)?(?:周|星期|礼拜)|今天|今晚",
    re.I,
)
_FROM_THEN_ON = re.compile(r"\b(?:from|starting|as\s+of|onwards?|going\s+forward)\b|开始|起|以后|往后", re.I)


def one_day_of_habit(new: str, old: str) -> bool:
    """Whether ``new`` tells of one day of the weekly habit ``old`` tells ("I swim every Wednesday", then "this
    Wednesday's swim is moved to Thursday", 这周三的游泳改到周四了), not of the habit from then on: it changes no
    habit."""
    return recurring_day(old) and _ONE_DAY.search(new) is not None and _FROM_THEN_ON.search(new) is None


def _moved_day(memory: Memory, old: Memory, change: Change) -> ExtractedTime | None:
    """When a dated plan is now, as the statement moving it says: "haircut on Saturday" (said on a Monday), then
    "haircut pushed to next Wednesday" (said on Thursday) is the Wednesday after that Thursday — the day written into
    the old words would be read as of the Monday, and without its "next". ``None``: no day of a dated plan moved."""
    if old.event_time is None:
        return None
    pairs = [(o, new) for o, new in replaced_values(old.content, change) if new.kind in _DAYS]
    if not pairs or any(_RECURRING.search(old.content[max(0, o.start - 8) : o.end]) for o, _ in pairs):
        return None  # a weekly day moved ("every Monday" → "Wednesdays") is no one day: its words say when
    day = pairs[0][1]
    found = event_times(memory.content, memory.message_time or memory.created_at)
    spans = expression_spans(memory.content, found)
    return next((time for time, (a, b) in zip(found, spans, strict=True) if a <= day.start < b), None)


def _window(memory: Memory, change: Change) -> timedelta:
    """How long after a statement a correction may still correct it: a day when it only says "actually" or "sorry"; a
    week when it says outright that something was wrong ("Wait, I got that wrong, it's the first Thursday", 看错日历了)
    or names the wrong value ("not Monday") — then what it corrects is named, not guessed from being the last said."""
    return SAID_WRONG_WINDOW if change.negated or says_wrong(memory.content) else CORRECTION_WINDOW


def supersede(
    memory: Memory,
    old: Memory,
    kept: str | None,
    reason: str,
    *,
    keep_words: bool = True,
    when: ExtractedTime | None = None,
) -> list[MemoryAction]:
    """``old`` expired by ``memory`` for ``reason``, and what else it said (``kept``: its words less what changed;
    ``None``: nothing) stored as a memory of its own, derived from both (:func:`derived`; at ``when`` if given)."""
    actions = [MemoryAction(action="expire", memory=expired_by(old, by=memory, at=memory.created_at), old=old,
                            reason=reason)]  # fmt: skip
    if kept:
        actions.append(
            MemoryAction(
                action="add", memory=derived(old, kept, by=memory, keep_words=keep_words, when=when), reason=reason
            )
        )
    return actions


def derived(
    old: Memory, content: str, *, by: Memory, keep_words: bool = True, when: ExtractedTime | None = None
) -> Memory:
    """A memory of what ``old`` says, as ``content`` now has it after ``by``: said when ``old`` was, from both's
    messages, its event time read from ``content`` as of then (``when``: the time ``by`` gave it, when it moved a
    plan); no vector yet (its words are new)."""
    digest = hashlib.sha256(f"{old.memory_id}\0{by.memory_id}".encode()).hexdigest()[:32]
    metadata = {k: v for k, v in old.metadata.items() if k not in (SLOTS_KEY, LLM_KEY, "superseded_by")}
    metadata.update({DERIVED_FROM: old.memory_id, CHANGED_BY: by.memory_id})
    # The turn is the record: the words it was said in stay in the key of what it became (a question in them still
    # finds this memory, and through its sources the turn), while the content says what is true now.
    earlier = said_before(old, content) if keep_words else []
    if earlier:
        metadata[SAID_BEFORE] = earlier
    update = {
        "memory_id": digest,
        "content": content,
        "keywords": keywords_of(content),
        "vector": None,
        "updated_at": by.created_at,
        "source": list(dict.fromkeys([*old.source, *by.source])),
        "metadata": metadata,
        "scores": {},
    }
    fresh = old.model_copy(update=update).with_event_time(None)
    if when is not None:
        return at_time(fresh, when)
    return with_event_time(fresh, content, old.message_time or old.created_at)
