"""Whether a memory tells a state that is over, and whether a query asks about now.

"I used to live in Sheffield", "she was formerly a nurse", 我以前住在海淀: the speaker's own words say the state is
past — true, worth keeping, and not the answer to "which town do I live in?" while another memory may be. A query
asks about now unless its own words look back ("where did I use to live?", "what was my job before?", 以前住哪):
a closed class of words of aspect and tense, read from the texts, never from what they are about.
"""

from __future__ import annotations

import re

from flowmem.timeexpr.tense import cues

# "used to" as a past habit, not "get used to", "I'm used to it", "used to the noise" (an adjective of habituation).
_PAST_STATE = re.compile(
    r"(?<!\bget\s)(?<!\bgot\s)(?<!\bgetting\s)(?<!\bam\s)(?<!\bis\s)(?<!\bare\s)(?<!'m\s)(?<!\bbe\s)(?<!\bbeen\s)"
    r"(?<!\bwas\s)(?<!\bwere\s)\bused\s+to\s+(?!(?:it|this|that|the|a|an|being|having)\b)[a-z]"
    r"|\b(?:formerly|previously|once\s+upon)\b|以前|曾经",
    re.IGNORECASE,
)
# A query that looks back: a past tense or a word of before.
_ASKS_PAST = re.compile(
    r"\b(?:did|was|were|had|used|use\s+to|before|previously|formerly|earlier|ago|last|first|old|ex|back\s+then)\b"
    r"|以前|之前|原来|曾经|过|上次|当初|那时",
    re.IGNORECASE,
)


# Every reading of _PAST_STATE holds one of these: a text without any is settled by a few substring tests (a search
# reads every candidate's content, and the expression's lookbehinds cost ~10 µs a text).
_ANY_WORD = ("used", "formerly", "previously", "once", "以前", "曾经")


def tells_past_state(text: str) -> bool:
    """Whether ``text`` tells a state of the past as over ("I used to live in Sheffield", 我以前在字节)."""
    lowered = text.lower()
    return any(word in lowered for word in _ANY_WORD) and _PAST_STATE.search(text) is not None


def asks_about_now(query: str) -> bool:
    """Whether ``query`` asks about how things are now (no past tense, no word of before)."""
    return _ASKS_PAST.search(query) is None


# Words of a time to come (what will be is not yet what is): "I'll be in year 13", "gonna be 30kg".
_FUTURE = re.compile(r"\b(?:will|shall|gonna|going\s+to)\b|'ll\b|要|会|将|打算|准备", re.IGNORECASE)
# A Chinese 了 that ends its clause tells a state now reached (我女儿上四年级了), not an event done (跑了五公里).
_ZH_ENDING_LE = re.compile(r"了(?=[，。！？；,.!?;~～\s]|$)")


def tells_state(text: str) -> bool:
    """Whether ``text`` tells how things are — no past wording (the tense cues of :mod:`flowmem.timeexpr.tense`, a
    clause-final 了 aside) and no future wording: "I'm in year 13 at Holmwood", 我女儿今年上四年级了, "sertraline
    100mg from today" — not "I ran 10k", 我跑了十公里, "I'll be in year 13"."""
    if _FUTURE.search(text):
        return False
    plain = _ZH_ENDING_LE.sub("", text)
    return not any(tense == "past" for _, tense in cues(plain))
