"""What marks a memory as the assistant's restatement of the user's words (:mod:`flowmem.scoring.echo`), and how such
a reply reads as the user would say it."""

from __future__ import annotations

import re

RESTATES = "restates"  # message and memory metadata: the id of the user's message an assistant reply restates

_SECOND_PERSON = (
    (re.compile(r"\byou(?:'re|’re|\s+are)\b", re.I), "I'm"),
    (re.compile(r"\byou(?:'ve|’ve)\b", re.I), "I've"),
    (re.compile(r"\byours\b", re.I), "mine"),
    (re.compile(r"\byour\b", re.I), "my"),
    (re.compile(r"\byourself\b", re.I), "myself"),
    (re.compile(r"\byou\b", re.I), "I"),
    (re.compile(r"你(?!们)"), "我"),
    (re.compile(r"您"), "我"),
)


def as_said_by_user(text: str) -> str:
    """A reply about the user in the second person, as the user would say it ("you've moved to Denver" → "I've
    moved to Denver", 你女儿 → 我女儿): the slot table reads the first person."""
    for pattern, first in _SECOND_PERSON:
        text = pattern.sub(first, text)
    return text
