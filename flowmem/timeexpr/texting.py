"""How texting writes the day words ("refill pickup tmrw", "yday was rough"): each stands for the word it shortens,
and is read as that word (forms that start with a digit, "2moro", are not: the time gate reads words of letters) —
by the day rules (:mod:`flowmem.timeexpr.en`) and by the tense of a clause (:mod:`flowmem.timeexpr.tense`)."""

from __future__ import annotations

TEXTING_DAYS = {
    "tmrw": "tomorrow", "tmr": "tomorrow", "tmrow": "tomorrow", "tmw": "tomorrow", "tmoro": "tomorrow",
    "tomoz": "tomorrow", "yday": "yesterday", "ystrdy": "yesterday", "yest": "yesterday", "tdy": "today",
}  # fmt: skip


def shortened(word: str) -> frozenset[str]:
    """The texting forms of ``word`` ("tomorrow" → tmrw, tmr, …)."""
    return frozenset(short for short, full in TEXTING_DAYS.items() if full == word)
