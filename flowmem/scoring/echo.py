"""The assistant's replies that restate what the user told it — "Noted: Pepper now eats Hillside kidney care kibble,
half a cup twice a day", 好的，记下了：你女儿9月1日开学 — are a record of the user's facts too.

A user corrects such a reply ("oops, one cup twice a day, not half"), so it must be stored to be corrected: a reply
left out keeps no trace of the wrong value it said, and one kept as someone else's words is never superseded by the
user's. Which replies restate is read from what they share with the user's words just before them, not from how
they are phrased:

- a reply that opens by confirming (got it, noted, understood, 好的, 记下了, …: a closed class of words; not "sure" or
  "okay", which open answers as often) and says
  again at least one thing the user's words named, in a short statement (an echo, not an answer); or
- any reply most of whose naming words (at least two) are the user's, or that says again a value of theirs (a day,
  a time, an amount, an e-mail) with another of their words.

Questions ("Is she starting 3rd grade there?") and pleasantries ("Good night!") restate nothing: a question asks, it
does not confirm. A kept reply is read, for its slots, as the user would say it (:func:`as_said_by_user`: "you live
in Denver" is "I live in Denver").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from flowmem.schema.memory import Memory
from flowmem.scoring.change import subject_terms
from flowmem.scoring.info import noise_kind
from flowmem.scoring.restated import RESTATES
from flowmem.scoring.slots import SLOTS_KEY
from flowmem.scoring.values import find_values

_ACKNOWLEDGES = re.compile(
    r"^\W*(?:got\s+it|noted|understood|pinned|saved|updated|will\s+do|done|all\s+set"
    r"|好的|好嘞|记下了|记住了|明白|收到|了解|知道了|没问题)(?![\w-])",
    re.I,
)
# …and the words of noting inside a reply, and a reaction before it: the noting is done, the thing noted is not
_NOTING = re.compile(
    r"\bI(?:['’]ve|\s+have|['’]ll|\s+will)?\s+(?:also\s+)?(?:noted(?:\s+down)?|added|saved|updated|made\s+a\s+note\s+of"
    r"|remember(?:ed)?|keep\s+in\s+mind)\s+(?:that\b\s*)?|我(?:已经)?(?:记下|记住|帮你记)(?:了|下了)?",
    re.I,
)
_INTERJECTION = re.compile(
    r"^\W*(?:lovely|great|nice|oh\s+nice|congrats|congratulations|wonderful|awesome|perfect|exciting|how\s+exciting"
    r"|太好了|恭喜|真棒)\W+",
    re.I,
)
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
ECHO_WORDS = 30  # an acknowledged echo is a short statement; a longer reply answers something
_CJK = re.compile(r"[\u4e00-\u9fff]")


def restates(reply: str, said: Sequence[str]) -> bool:
    """Whether the assistant's ``reply`` restates what the user ``said`` (their messages just before it)."""
    acknowledged = _ACKNOWLEDGES.search(reply)
    statements = [
        s.strip() for s in _SENTENCE.findall(said_back(reply)) if s.strip() and not s.strip().endswith(("?", "？"))
    ]
    body = " ".join(statements).strip(" ,，:：—–-!！.。")
    if not body or not said or noise_kind(body) == "pleasantry":
        return False
    mine = subject_terms(body)
    shared = mine & frozenset().union(*(subject_terms(text) for text in said))
    values = {(v.kind, v.norm) for v in find_values(body) if v.kind != "name"}
    theirs = {(v.kind, v.norm) for text in said for v in find_values(text) if v.kind != "name"}
    again = len(shared) + len(values & theirs)
    if acknowledged and again >= 1 and _length(body) <= ECHO_WORDS:
        return True
    return again >= 2 and len(shared) * 2 >= len(mine)


def said_back(reply: str) -> str:
    """What ``reply`` says after its acknowledgement ("Got it: Temescal, Mochi, and Sam." → "Temescal, Mochi, and
    Sam."; 好的，记下了：你女儿9月1日开学 → 你女儿9月1日开学): its facts, and their times, without the tense of "noted"
    (记下了 tells the noting as done, not the first day of school)."""
    reply = _NOTING.sub("", _INTERJECTION.sub("", reply))  # "Lovely! I've noted your sister's wedding on…"
    acknowledged = _ACKNOWLEDGES.search(reply)
    if acknowledged is None:
        return reply
    rest = reply[acknowledged.end() :]
    while (more := _ACKNOWLEDGES.search(rest.lstrip(" ,，:：—–-!！.。~～"))) is not None:  # 好的，记下了：
        rest = rest.lstrip(" ,，:：—–-!！.。~～")[more.end() :]
    return rest.lstrip(" ,，:：—–-!！.。~～")


def restated_words(reply: str) -> str:
    """``reply`` with what each of its sentences says after its acknowledgement and without its words of noting
    (:func:`said_back`): the text whose tenses tell the times of what an assistant's restatement says back."""
    said = (said_back(m.group().strip()) for m in _SENTENCE.finditer(reply))
    return " ".join(part for part in said if re.search(r"\w", part)).strip() or reply


def _length(text: str) -> int:
    """Words, a Chinese text counted two characters a word."""
    return len(text.split()) + len(_CJK.findall(text)) // 2


def restated_slots(reply: Memory, said: Sequence[Memory]) -> dict[str, str]:
    """The slots (``metadata["slots"]``) of the user's memories that ``reply``, an assistant's restatement, says again
    in its own words ("Noted. I'll keep food suggestions vegetarian" of "I'm vegetarian": ``diet: vegetarian``): the
    reply holds them too, so the change that replaces them in the user's words replaces them in the reply's."""
    restated = reply.metadata.get(RESTATES)
    if not restated:
        return {}
    words = subject_terms(reply.content)
    found: dict[str, str] = {}
    for memory in said:
        if restated not in memory.source or memory.memory_id == reply.memory_id:
            continue
        for slot, value in (memory.metadata.get(SLOTS_KEY) or {}).items():
            if (terms := subject_terms(value)) and terms <= words:
                found.setdefault(slot, value)
    return found
