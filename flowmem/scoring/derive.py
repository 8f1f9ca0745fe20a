"""Building memories from messages: stable ids, message and event times, keywords."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from typing import Any

from flowmem.schema.memory import Memory, MemoryType, Message
from flowmem.scoring.lexical import words
from flowmem.timeexpr import extract_all
from flowmem.timeexpr.model import ExtractedTime, canonical_parts


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
) -> Memory:
    """A memory of ``user_id``'s message (default: ``target``'s): said at the message's time, about the
    event time its words name.

    The event time is read from the message's own words (not a rephrasing), relative to when it
    was said: "I'm flying to Chicago next Thursday", said on 2024-04-25, is an event on 2024-05-02.
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
        metadata={"role": message.role, "name": message.name},
    ).with_message_time(said)
    return with_event_time(memory, message.content, said)


_FUTURE = re.compile(
    r"\b(will|won't|'ll|going to|gonna|want to|wanna|plan(?:ning)? to|hope to|about to|can't wait|upcoming|"
    r"coming up|flying|leaving|booked|scheduled)\b|要|想|打算|准备|计划|将|会",
    re.I,
)
_PAST_WORDS = re.compile(r"\b(last|ago|yesterday|previous|earlier)\b|上|前|昨|去年|之前", re.I)
_WEEKDAY = re.compile(r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|周|星期|礼拜", re.I)


def event_time(text: str, said: datetime) -> ExtractedTime | None:
    """The first time ``text`` names, relative to when it was said.

    The rules read a bare name ("in June", "on Friday", 五月) as its latest occurrence, right for
    questions about the past; a message that speaks of a plan ("we want to do Tam in June") means
    the next one, so there the occurrence moves forward a week (weekdays, weekends) or a year.
    """
    found = extract_all(text, said)
    if not found:
        return None
    when = found[0]
    if when.end <= said and _FUTURE.search(text) and not _PAST_WORDS.search(when.expression):
        step = timedelta(days=7) if _WEEKDAY.search(when.expression) else None
        start = when.start + step if step else _next_year(when.start)
        end = when.end + step if step else _next_year(when.end)
        parts = canonical_parts(when.granularity, start)
        when = when.model_copy(update={"start": start, "end": end, "parts": parts})
    return when


def _next_year(value: datetime) -> datetime:
    try:
        return value.replace(year=value.year + 1)
    except ValueError:  # 29 February
        return value.replace(year=value.year + 1, day=28)


def with_event_time(memory: Memory, text: str, said: datetime) -> Memory:
    """``memory`` with the event parts and range of the first time ``text`` names (relative to ``said``)."""
    when = event_time(text, said)
    if when is None:
        return memory
    update: dict[str, Any] = {f"event_{part}": value for part, value in when.parts.items()}
    update.update(event_start=when.start, event_end=when.end)
    return memory.model_copy(update=update)
