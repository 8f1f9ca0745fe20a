"""A cheap keyword gate: may this text contain a time expression?

It runs on every query before anything else, so it is a set lookup of the text's words plus two
precompiled regex searches. It is a superset of what the rules of :mod:`flowmem.timeexpr.en` and
:mod:`flowmem.timeexpr.zh` can match (a property test checks that): a false positive costs one run
of the rules, a false negative loses the time of the query. The English vocabulary is the union of
the words the English rules (holidays and ranges too) are triggered by; every Chinese rule needs
one of the characters below;
the numeric patterns cover the rules that work on digits (3pm, 15:00, 2023-05-05, 3/28, the 5th, in 2023).
"""

from __future__ import annotations

import re

from flowmem.timeexpr import holiday_rules, ranges
from flowmem.timeexpr.en import TRIGGER_WORDS as _EN_WORDS
from flowmem.timeexpr.mention import DIGIT
from flowmem.timeexpr.numerals import normalize_width
from flowmem.timeexpr.texting import digit_words

TRIGGER_WORDS = _EN_WORDS.union(*(rule.triggers or () for rule in holiday_rules.EN_RULES + ranges.EN_RULES)) - {DIGIT}

_WORD = re.compile(r"[a-z]+")
_NUMERIC = re.compile(
    r"\d\s*[ap]\.?m\b|\d(?:st|nd|rd|th)\b|\d:[0-5]\d|\d{4}[-/.]\d|\d[/.]\d{1,2}[/.]\d|\d/\d"
    r"|\d-[a-z]{3}-\d|(?<!\d)(?:1[89]|2[01])\d\d(?!\d)",
    re.IGNORECASE,
)
# The last characters cover the holiday names (元旦, 春节, 除夕, 元宵, 中秋, 重阳, 国庆, 圣诞, 五一, 清明).
_ZH = re.compile(r"[天日号號周週期拜月年点點时時午晚早晨夜季钟鐘节節夕宵秋阳陽庆慶旦诞誕]|[今昨明]儿|五一|清明")


def has_time_words(text: str, language: str | None = None) -> bool:
    """True when ``text`` may contain a time expression in ``language`` ("en", "zh"; ``None``: either).

    False positives are fine ("May I ask…", 生日); false negatives are not.
    """
    text = normalize_width(text)
    if _NUMERIC.search(text):
        return True
    if language != "en" and _ZH.search(text):
        return True
    if language == "zh":
        return False
    lowered = text.lower()
    return not TRIGGER_WORDS.isdisjoint(_WORD.findall(lowered)) or not TRIGGER_WORDS.isdisjoint(digit_words(lowered))
