"""Events named by what they are: once "my last day there is March 19" is said, "a send-off lunch on my last day"
is on March 19 too.

People date a thing once and then call it by its name: the wedding, my birthday, the move, 婚礼, 体检. A clause
that **defines** such a name gives it the time beside it — a possessive or definite noun phrase, a copula (is, was,
will be, 's; Chinese 是, 在, 定在, 定于, 安排在) and the time expression right after it. A later text that names no
time of its own but **uses** the name after a preposition of the same time (on, at, during, for; Chinese the name
followed by 那天, 当天, 上, 的时候) is about that time. "before my last day" or "after the wedding" are other times
and are left alone.

Why it generalises: the definition and the use are read from the structure of the sentence (determiner, noun
phrase, copula, time; preposition, determiner, the same noun phrase), not from a list of event words: any name a
user gives a date is an anchor, in any wording of the rest of the sentence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from flowmem.timeexpr.model import ExtractedTime

_DETERMINER = r"(?:my|our|his|her|their|the|your)"
_NP = r"(?P<np>(?:[a-z][\w'-]*\s+){0,3}?[a-z][\w'-]*)"
_EN_DEFINE = re.compile(
    rf"\b(?P<det>{_DETERMINER})\s+{_NP}(?:\s+(?:there|here|date|day))?"
    r"(?:\s+(?:is|was|will\s+be|are|were|falls\s+on|lands\s+on)|'s|’s)\s+(?:on\s+|at\s+|in\s+)?$",
    re.I,
)
_ZH_DEFINE = re.compile(r"(?P<np>[\u4e00-\u9fff]{2,4}?)(?:定在|定于|安排在|改到|改在|是|在)$")
_ZH_SUFFIX = "(?:那天|当天|上|的时候)"
# Words that never name an event of their own: "the day is", "my time was".
_NOT_A_NAME = frozenset(["day", "time", "date", "one", "it", "that", "this", "thing", "plan", "answer", "deadline is"])


Name = tuple[str, str]
"""A named event: the kind of its determiner (:func:`_owner`) and its words, lower-cased."""


def anchors_of(text: str, times: list[ExtractedTime]) -> dict[Name, ExtractedTime]:
    """The names ``text`` gives a time: the noun phrase defined right before each of ``times`` (as found in
    ``text``)."""
    found: dict[Name, ExtractedTime] = {}
    at = 0
    for when in times:
        start = text.find(when.expression, at)
        if start < 0:
            continue
        at = start + len(when.expression)
        before = text[max(0, start - 60) : start]
        match = _EN_DEFINE.search(before) or _ZH_DEFINE.search(before)
        if match is None:
            continue
        name = " ".join(match["np"].lower().split())
        if name and name not in _NOT_A_NAME:
            found[(_owner(match), name)] = when
    return found


def _owner(match: re.Match[str]) -> str:
    """The kind of determiner a name was defined with: ``my`` (my wedding and our wedding are one), ``the`` (anyone's
    wedding), ``-`` (Chinese has none)."""
    determiner = (match.groupdict().get("det") or "-").lower()
    return "my" if determiner in ("my", "our") else determiner


def anchored(text: str, anchors: Mapping[Name, ExtractedTime]) -> ExtractedTime | None:
    """The time of the first anchor ``text`` uses on its day ("on my last day", "for my birthday", 婚礼那天)."""
    for (determiner, name), when in anchors.items():
        if name.isascii():  # the same kind of determiner, and not another thing's ("the last day of the course")
            owner = "(?:my|our)" if determiner == "my" else re.escape(determiner)
            use = rf"\b(?:on|at|during|for)\s+{owner}\s+{re.escape(name)}\b(?!\s+of\b)"
        else:
            use = rf"{re.escape(name)}{_ZH_SUFFIX}"
        if re.search(use, text, re.I):
            return when
    return None
