"""Building memories from messages: stable ids, message and event times, keywords."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import groupby
from typing import Any

from flowmem.schema.memory import EVENT_PARTS, Memory, MemoryType, Message
from flowmem.scoring.change import first_subject_term, negated_at, read_changes, subject_terms
from flowmem.scoring.keys import CAPTION, SPEAKER
from flowmem.scoring.lexical import words
from flowmem.scoring.restated import RESTATES
from flowmem.timeexpr import expression_spans, extract_all
from flowmem.timeexpr.anchors import Name, anchored, anchors_of
from flowmem.timeexpr.en import WEEKDAY
from flowmem.timeexpr.model import ExtractedTime, canonical_parts
from flowmem.timeexpr.tense import arranges, moved_to, reports_done
from flowmem.timeexpr.vague import vague_past


def derived_id(workspace_id: str, user_id: str, message_id: str, index: int) -> str:
    """The id of the ``index``-th memory derived from ``user_id``'s message: the same on every run, so
    a rerun after a crash rewrites the same memories instead of adding copies.

    A message is identified by (workspace, user, message id), so the user is part of the id: Bob's
    ``m1`` must not derive the id of Alice's ``m1`` memory and overwrite it. Each part is length-
    prefixed, so no two triples share a digest whatever characters the ids contain.
    """
    key = "".join(f"{len(part)}\0{part}\0" for part in (workspace_id, user_id, message_id))
    return hashlib.sha256(f"{key}{index}".encode()).hexdigest()[:32]


def keywords_of(text: str, limit: int = 5) -> list[str]:
    """The first few content words (no stop words), in order."""
    seen: list[str] = []
    for word in words(text):
        if word not in seen and (len(word) > 2 or not word.isascii()):
            seen.append(word)
    return sorted(seen, key=lambda w: text.lower().find(w))[:limit]


SESSION = "session"  # metadata: the conversation session the turn belongs to
# What a message's metadata says about the turn that its memory keeps: who said it, in which session, and what
# an image it shared shows (the memory's key reads the caption, flowmem.scoring.keys). The turn is the record:
# a memory derived from a message keeps these as the message gave them; other keys of a message's metadata are
# the caller's own and stay on the message.
PROVENANCE = (SPEAKER, SESSION, CAPTION, RESTATES)


def memory_from_message(
    message: Message,
    *,
    workspace_id: str,
    target: str,
    user_id: str | None = None,
    index: int = 0,
    content: str | None = None,
    memory_type: MemoryType = "conversation",
    when_to_use: str = "",
    keywords: list[str] | None = None,
    event_text: str | None = None,
) -> Memory:
    """A memory of ``user_id``'s message (default: ``target``'s): said at the message's time, about the
    event time its words name.

    The memory keeps the message's role and name, and the :data:`PROVENANCE` its metadata gives (speaker,
    session, an image's caption). The event time is read from the message's own words (not a rephrasing),
    relative to when it was said: "I'm flying to Chicago next Thursday", said on 2024-04-25, is an event on 2024-05-02.
    ``event_text`` narrows those words to a part of the message (one fact of several, in the user's
    own words), so each fact gets the time it names, not the first one of the message.
    """
    text = " ".join((content if content is not None else message.content).split())
    said = message.time_created
    memory = Memory(
        workspace_id=workspace_id,
        memory_id=derived_id(workspace_id, target if user_id is None else user_id, message.message_id, index),
        target=target,
        memory_type=memory_type,
        when_to_use=when_to_use,
        content=text,
        keywords=keywords if keywords is not None else keywords_of(text),
        created_at=said,
        updated_at=said,
        source=[message.message_id],
        metadata={**{k: message.metadata[k] for k in PROVENANCE if k in message.metadata},
                  "role": message.role, "name": message.name},
    ).with_message_time(said)  # fmt: skip
    if event_text is None:
        return with_event_time(memory, message.content, said)
    text, start = _in_its_sentence(message.content, event_text)
    return with_event_time(memory, text, said, start=start)


_SENTENCE_ENDS = ".!?;。！？；"


def _in_its_sentence(message: str, part: str) -> tuple[str, int]:
    """``part`` with the words of its sentence that come before it, and where ``part`` starts in them: a part cut
    from a clause ("bouldering on Tuesday" of "Went climbing on Sunday, bouldering on Tuesday") has no tense of its
    own, and its time is read in the clause it was cut from. ``(part, 0)`` when the message does not hold it."""
    flat = " ".join(message.split())
    at = flat.find(part)
    if at < 0:
        return part, 0
    begins = max(flat.rfind(end, 0, at) for end in _SENTENCE_ENDS) + 1
    return flat[begins : at + len(part)], at - begins


def event_time(text: str, said: datetime, start: int = 0) -> ExtractedTime | None:
    """The first time ``text`` names, relative to when it was said.

    The same resolver as queries (:func:`flowmem.timeexpr.extract_all`), with the tense read from
    the message's words: "the talk on Saturday we went to" is the Saturday before, "I'm giving the
    talk on Saturday" the coming one, and so is neutral wording ("Housewarming party on Saturday",
    said on a Monday, is five days ahead, not two back: the past is told in the past tense), unless the
    name recurs yearly and the last one is nearer (see :mod:`flowmem.timeexpr.pick`). "Friday the 28th"
    is the nearest 28th that is a Friday in that direction. A count of weeks ahead is a day: "the
    wedding is in two weeks" is the day 14 days on (a question's "in two weeks" is that week).

    Of several times, the first one not denied ("sat not fri", "Tuesday, not Monday") — unless a plan was moved (the
    time it was moved to: :func:`~flowmem.timeexpr.tense.moved_to`), or the text tells of arranging or hearing of
    something ahead (:func:`~flowmem.timeexpr.tense.arranges`, in the words around a time not ahead: "booked the vet
    yesterday for the jabs next Friday", "Mum rang last night - her operation is on July 2nd",
    昨天订好了机票，下个月5号飞成都): then the first time after the day it was said — the booking, the call,
    the news were how the event was made or heard of, and the event is what the memory is about.
    """
    found = event_times(text, said)
    spans = expression_spans(text, found)
    if start:  # the words before ``start`` are context: their times are not this text's
        found, spans = (
            [t for t, s in zip(found, spans, strict=True) if s[0] >= start],
            [s for s in spans if s[0] >= start],
        )
    if len(found) < 2:
        return found[0] if found else None
    told = [(t, span) for t, span in zip(found, spans, strict=True) if not negated_at(text, span[0])]
    if told and len(told) < len(found):  # "the party is sat not fri": the day it is, not the day it is not
        found, spans = [t for t, _ in told], [span for _, span in told]
        if len(found) < 2:
            return found[0]
    targets = moved_to(text)
    if targets:  # a plan moved: its date is the one it was moved to ("off Thursday, they moved me to Monday")
        return next((t for t, (_, end) in zip(found, spans, strict=True) if end > targets[0]), found[0])
    ahead = [t for t in found if t.start.date() > said.date()]
    if ahead and any(
        t.start.date() <= said.date() and arranges(text, at) for t, (at, _) in zip(found, spans, strict=True)
    ):
        return ahead[0]  # "Booked the vet yesterday for the jabs next Friday": the booking was the way to the event
    return _narrowed(found)


def _narrowed(found: list[ExtractedTime]) -> ExtractedTime:
    """The first time, or a later one that lies inside it and is shorter: "this weekend … on Saturday", "next week,
    Tuesday", "in March, on the 14th" — the second narrows the first, and the event is on the narrower. A bare weekday
    said after a week or a weekend is that day of it, wherever it resolved alone ("next week I'm in Leeds, Tuesday
    probably": the Tuesday of next week, not the coming one)."""
    first = found[0]
    later = [_in_week_of(first, t) for t in found[1:]]
    shorter = [t for t in later if t.end - t.start < first.end - first.start]
    inside = [t for t in shorter if first.start <= t.start and t.end <= first.end]
    return min(inside, key=lambda t: t.end - t.start) if inside else first


_BARE_WEEKDAY = re.compile(rf"^(?:on\s+|this\s+)?(?:{WEEKDAY})s?$|^(?:周|星期|礼拜)[一二三四五六日天]$", re.I)


def _in_week_of(span: ExtractedTime, day: ExtractedTime) -> ExtractedTime:
    """``day`` moved into ``span`` (a week or a weekend) when it is a bare weekday ``span`` holds, else as it is."""
    if span.granularity not in ("week", "weekend") or day.granularity != "day":
        return day
    if not _BARE_WEEKDAY.match(day.expression.strip()) or span.start <= day.start < span.end:
        return day
    at = span.start + timedelta(days=(day.start.weekday() - span.start.weekday()) % 7)
    if at >= span.end:
        return day
    start = at.replace(hour=0, minute=0, second=0, microsecond=0)
    return ExtractedTime(
        parts=canonical_parts("day", start), start=start, end=start + timedelta(days=1), expression=day.expression,
        granularity="day", source=day.source,
    )  # fmt: skip


def event_times(text: str, said: datetime) -> list[ExtractedTime]:
    """Every time ``text`` names, relative to when it was said (read as :func:`event_time` reads the first)."""
    return extract_all(text, said, lean="neutral", weeks_ahead="day")


def with_event_time(memory: Memory, text: str, said: datetime, *, start: int = 0) -> Memory:
    """``memory`` with the event parts and range of the first time ``text[start:]`` names (relative to ``said``; the
    words before ``start`` only tell its tense); a text that names none but a vague past ("the other day", 前几天:
    :func:`~flowmem.timeexpr.vague.vague_past`) is about the days it points into; one that names neither but tells of
    something done ("signed the lease!!", 把脚崴了: :func:`~flowmem.timeexpr.tense.reports_done`) is about the day it
    was said."""
    own = text[start:]
    when = event_time(text, said, start) or vague_past(own, said)
    when = when or (event_time("today", said) if reports_done(own) else None)
    return memory if when is None else at_time(memory, when)


def at_time(memory: Memory, when: ExtractedTime) -> Memory:
    """``memory`` with the event parts and range of ``when``."""
    update: dict[str, Any] = {f"event_{part}": value for part, value in when.parts.items()}
    update.update(event_start=when.start, event_end=when.end)
    return memory.model_copy(update=update)


def with_anchored_times(memories: Sequence[Memory]) -> list[Memory]:
    """``memories`` (derived from messages, in the order said) where one without an event time of its own uses the
    name of an event an earlier one — or another fact of its own message — gave a time ("my last day there is March
    19", then "a send-off lunch on my last day": :mod:`flowmem.timeexpr.anchors`). A later definition of a name
    replaces an earlier one, and so does a correction of its time in the very next message ("my birthday's August
    4th btw", then "ugh fat fingers. August 14")."""
    anchors: dict[Name, ExtractedTime] = {}
    last: dict[Name, ExtractedTime] = {}  # the names the message before defined
    dated: list[Memory] = []
    told: list[Memory] = []  # the facts of earlier messages that named their own time
    for _, group in groupby(memories, key=lambda m: tuple(m.source)):
        facts = list(group)
        defined: dict[Name, ExtractedTime] = {}
        own = [event_times(f.content, f.created_at) if f.event_time is not None else [] for f in facts]
        for fact, times in zip(facts, own, strict=True):
            defined.update(anchors_of(fact.content, times))
            if times and not defined and last and _corrects(fact.content):
                defined = dict.fromkeys(last, times[0])
        anchors.update(defined)
        last = defined
        for fact, times in zip(facts, own, strict=True):
            # A name beats "told as done" (a cake ordered today for my birthday is about the birthday), never a time
            # the fact's own words name (read once, above).
            when = anchored(fact.content, anchors) if anchors and not times else None
            if when is not None:
                dated.append(at_time(fact, when))
            elif not times and (event := same_event(fact, told)) is not None:
                dated.append(fact.model_copy(update={k: getattr(event, k) for k in EVENT_FIELDS}))
            else:
                dated.append(fact)
        told += [fact for fact, times in zip(facts, own, strict=True) if times]
    return dated


EVENT_FIELDS = (*EVENT_PARTS, "event_start", "event_end")
SAME_EVENT_DAYS = 21  # how long after an event a word of it without a time is taken to be of it
# "again", "another", 又, 再: another time of the same doing, not the one told before
_ANOTHER_TIME = re.compile(r"\b(?:again|another|next|every|each|always|usually)\b|又|再|每|下次|经常|总是", re.I)


def same_event(fact: Memory, told: Sequence[Memory]) -> Memory | None:
    """The latest of ``told`` (facts said earlier with a time of their own) whose event ``fact`` — naming no time — is
    a word of, once it has happened: "Dinner with Sofia on Friday!", then "the dinner with Sofia was so lovely" — at
    least two words of substance in common, half of the fewer's, among them the first the later says, what it is
    about (not "Follow-up with Dr Haddad went ok…" after "Saw Dr Haddad at the clinic…": the doctor and the drug are
    what the two visits share, not the visit). Not another time of the doing ("climbing with Marcus again"), nor an
    event more than :data:`SAME_EVENT_DAYS` before."""
    said = fact.message_time or fact.created_at
    if _ANOTHER_TIME.search(fact.content):
        return None
    mine = subject_terms(fact.content)
    for earlier in reversed(told):
        when = earlier.event_start or earlier.event_time
        if when is None or not (said - timedelta(days=SAME_EVENT_DAYS) <= when <= said):
            continue
        theirs = subject_terms(earlier.content)
        shared = len(mine & theirs)
        if shared >= 2 and shared >= 0.5 * min(len(mine), len(theirs)) and first_subject_term(fact.content) in theirs:
            return earlier
    return None


def _corrects(text: str) -> bool:
    """Whether ``text`` corrects a value just said (:func:`flowmem.scoring.change.read_changes`)."""
    return any(change.kind == "corrected" and change.values for change in read_changes(text))
