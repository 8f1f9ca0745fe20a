"""A cheap keyword gate: may this text contain a time expression?

It runs on every query before anything else, so it is a set lookup of the text's words plus two
precompiled regex searches. It is a superset of what the rules of :mod:`flowmem.timeexpr.en` and
:mod:`flowmem.timeexpr.zh` can match (a property test checks that): a false positive costs one run
of the rules, a false negative loses the time of the query. The English vocabulary is the union of
the words the English rules are triggered by; every Chinese rule needs one of the characters below;
the numeric patterns cover the rules that work on digits (3pm, 15:00, 2023-05-05, the 5th, in 2023).
"""

from __future__ import annotations

import re

from flowmem.timeexpr.en import TRIGGER_WORDS
from flowmem.timeexpr.numerals import normalize_width

_WORD = re.compile(r"[a-z]+")
_NUMERIC = re.compile(
    r"\d\s*[ap]\.?m\b|\d(?:st|nd|rd|th)\b|\d:[0-5]\d|\d{4}[-/.]\d|\d[/.]\d{1,2}[/.]\d"
    r"|\d-[a-z]{3}-\d|(?<!\d)(?:1[89]|2[01])\d\d(?!\d)",
    re.IGNORECASE,
)
_ZH = re.compile(r"[天日号號周週期拜月年点點时時午晚早晨夜季钟鐘]|[今昨明]儿")


def has_time_words(text: str, language: str | None = None) -> bool:
    """True when ``text`` may contain a time expression in ``language`` ("en", "zh"; ``None``: either).

    False positives are fine ("May I ask…", 生日); false negatives are not.
    """
    text = normalize_width(text)
    if _NUMERIC.search(text):
        return True
    if language != "en" and _ZH.search(text):
        return True
    return language != "zh" and not TRIGGER_WORDS.isdisjoint(_WORD.findall(text.lower()))
