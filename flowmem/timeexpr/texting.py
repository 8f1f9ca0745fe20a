"""How texting writes the day words ("refill pickup tmrw", "yday was rough"): each stands for the word it shortens,
and is read as that word (those that start with a digit, "2moro", "2nite", by the time gate too) —
by the day rules (:mod:`flowmem.timeexpr.en`) and by the tense of a clause (:mod:`flowmem.timeexpr.tense`)."""

from __future__ import annotations

import re

TEXTING_DAYS = {
    "tmrw": "tomorrow", "tmr": "tomorrow", "tmrow": "tomorrow", "tmw": "tomorrow", "tmoro": "tomorrow",
    "tomoz": "tomorrow", "yday": "yesterday", "ystrdy": "yesterday", "yest": "yesterday", "tdy": "today",
    "2moro": "tomorrow", "2morrow": "tomorrow", "2mrw": "tomorrow", "2nite": "tonight", "2night": "tonight",
}  # fmt: skip


def shortened(word: str) -> frozenset[str]:
    """The texting forms of ``word`` ("tomorrow" → tmrw, tmr, …)."""
    return frozenset(short for short, full in TEXTING_DAYS.items() if full == word)


_DIGIT_FORM = re.compile(r"\b2[a-z]+\b")


def digit_words(lowered: str) -> list[str]:
    """The words of ``lowered`` (lowercase text) that start with a digit as texting writes them ("2moro", "2nite"):
    word gates that read words of letters add these."""
    return _DIGIT_FORM.findall(lowered)
