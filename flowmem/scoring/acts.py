"""What a conversation turn does: tells something, only asks, or speaks mostly to the listener.

Read from the turn's words alone (English and Chinese pronouns and question marks). ``dialogue_act_op`` ranks turns
that only ask or talk to the listener below turns that tell; ``contra_repeat_op`` merges near-duplicates only of
turns that tell (a question or a reaction states no fact to deduplicate).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

Act = Literal["question", "addressed", "statement"]

# Personal pronouns of the first and second person: English words (after lower-casing, curly apostrophes
# straightened and punctuation stripped; a set lookup per word, ten times cheaper than one regex over the text),
# and Chinese characters, counted in unspaced text (我们 counts 我 once: one mention).
_FIRST = frozenset("i i'm i've i'd i'll me my mine myself we we're we've we'd we'll us our ours ourselves".split())  # noqa: SIM905
_SECOND = frozenset("you you're you've you'd you'll your yours yourself yourselves".split())  # noqa: SIM905
_FIRST_ZH = "我咱"
_SECOND_ZH = "你您"
_PUNCTUATION = '.,!?;:"()[]…-—'
# Sentence ends, ASCII and full-width; a question is a sentence ending in ? (or ？, or Chinese 吗/呢 + end).
_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]*")
_QUESTION = re.compile(r"(?:[?？]|[吗呢][。.]?)\s*$")
# "Wow!", "Thanks, Mel!", "Oh man," — a few words that only react; they do not make a question a statement.
_INTERJECTION_WORDS = 3


@lru_cache(maxsize=4096)  # the same turns come back query after query (~20 candidates a query)
def dialogue_act(text: str) -> Act:
    """``question`` (only asks), ``addressed`` (mostly second person) or ``statement`` (the rest)."""
    if "?" in text or "？" in text or "吗" in text or "呢" in text:  # the sentence split only when it can matter
        sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
        questions = [s for s in sentences if _QUESTION.search(s)]
        if questions and all(s in questions or _is_interjection(s) for s in sentences):
            return "question"
    first, second = _persons(text)
    return "addressed" if second > first else "statement"


def _persons(text: str) -> tuple[int, int]:
    """How many first- and second-person pronouns ``text`` has."""
    first = second = 0
    for word in text.lower().replace("\u2019", "'").split():
        word = word.strip(_PUNCTUATION)
        if word in _FIRST:
            first += 1
        elif word in _SECOND:
            second += 1
    if not text.isascii():
        first += sum(text.count(c) for c in _FIRST_ZH)
        second += sum(text.count(c) for c in _SECOND_ZH)
    return first, second


def _is_interjection(sentence: str) -> bool:
    words = sentence.split()
    # Unspaced scripts (Chinese) have one "word" per sentence: count characters instead, 4 to a short reaction.
    if len(words) == 1 and not sentence.isascii():
        return len(sentence.strip("。！!.，, ")) <= 4
    return len(words) <= _INTERJECTION_WORDS
