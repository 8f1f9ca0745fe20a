"""Who "he" and "she" are: a turn that speaks of a person by a pronoun is keyed with the person's name.

"I've been seeing someone, his name is Marcus", then "Really well. He's a physical therapist and makes the best
dal": the second turn is the only record of Marcus's job, and "what does Marcus do?" shares no word with it. People
say a name once and then use a pronoun, so the turn keeps its words as said and its search key (its expanded key,
:mod:`flowmem.scoring.keys`) gets the name the pronoun stands for: the person named last before it, in the same
turn or an earlier one of the chat.

A name counts as a person's by how it is said, not by a list of names: after a person noun ("my sister Cleo",
"boyfriend Marcus"), in "his/her name is X", "named/called X" after a person noun, "with X", "X and I", "me and
X", or before a verb of saying or doing that only people do ("Cleo said", "Marcus texted"). Chinese: a kin or
person word followed by 叫 and a name (我男朋友叫小林). A pronoun refers when it opens a clause of a turn that names
no person itself.

And who a name is to the speaker: "my sister Leah" (Leah, my sister; 我男朋友叫小林) says it once, and the turns after
speak of Leah by her name ("Leah left teaching!! She's a sales rep now"), while "what does my sister do?" names her by
the relation. A turn that names (or, by a pronoun, refers to) a person the chat earlier introduced with a relation
keeps that relation word in ``metadata["known_as"]``, keyed as the relation's words are. The relation is read from how
the chat said it, a possessive and a person noun beside the name, not from a list of names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from flowmem.schema.memory import Memory
from flowmem.scoring.people import NOT_NAMES, PERSON_NOUN, ZH_KIN

REFERS_TO = "refers_to"  # metadata: the names the memory's pronouns stand for, keyed (flowmem.scoring.keys)
KNOWN_AS = "known_as"  # metadata: who the people the memory speaks of are to the speaker ("sister"), keyed

_NAME = r"(?P<name>(?-i:[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?))"
_SAYS = (
    r"(?:said|says|told|texted|called|asked|thinks|thought|wants|loves|hates|works|lives|moved|got|is|was|has|had|"
    r"came|went|cooked|made|sent|quit|started|left|just)"
)
# How a name follows the person noun it is given to: "my sister Cleo", "a friend called Ana"; 我男朋友叫小林.
_NAMED_AFTER = rf"(?:'s\s+name\s+is|\s+is\s+called|\s+named|\s+called|,)?\s+{_NAME}"
_ZH_NAMED_AFTER = r"(?:的名字)?叫(?P<name>[\u4e00-\u9fff]{2,3}?)(?=[，。！？；,.!?;\s]|是|在|$)"
_EN_PEOPLE = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        rf"\b{PERSON_NOUN}{_NAMED_AFTER}",
        rf"\b(?:his|her|their)\s+name(?:'s|\s+is)\s+{_NAME}",
        rf"\b(?:with|and|me\s+and)\s+{_NAME}\b",
        rf"\b{_NAME}\s+and\s+(?:i|me)\b",
    )
)
# "Marcus texted me" — but a sentence's first word is capitalised whatever it is ("Tomorrow is"): inside one only.
_EN_DOER = re.compile(rf"(?<=[a-z,;:]\s){_NAME}\s+{_SAYS}\b")
_ZH_PEOPLE = re.compile(rf"(?:{ZH_KIN}){_ZH_NAMED_AFTER}")
# "my sister Leah", "our neighbour, Priya", "Leah, my sister"; 我男朋友叫小林 (with 叫: 我妈今天在家 names no one)
_INTRODUCED = (
    re.compile(rf"\b(?:my|our)\s+(?P<relation>{PERSON_NOUN}){_NAMED_AFTER}", re.I),
    re.compile(rf"{_NAME},\s+(?:my|our)\s+(?P<relation>{PERSON_NOUN})\b", re.I),
    re.compile(rf"(?:我|我们)(?:的)?(?P<relation>{ZH_KIN}){_ZH_NAMED_AFTER}"),
)
_EN_PRONOUN = re.compile(r"(?:^|[.!?;,]\s*|\b(?:and|but|so|because)\s+)(?:he|she|he's|she's|him|her)\b", re.I)
_CJK = re.compile(r"[\u3400-\u9fff]")
_ZH_PRONOUN = re.compile(r"(?:^|[，。！？；,.!?;\s])[他她]")


def people_named(text: str) -> list[str]:
    """The people ``text`` names, in order, by how it says them (see the module docstring)."""
    found: list[tuple[int, str]] = []
    for pattern in (*_EN_PEOPLE, _EN_DOER, _ZH_PEOPLE):
        for match in pattern.finditer(text):
            name = match["name"]
            if name and name.lower() not in NOT_NAMES:
                found.append((match.start(), name))
    return [name for _, name in sorted(found)]


def uses_pronoun(text: str) -> bool:
    """Whether a clause of ``text`` opens with a third-person pronoun (He's a physical therapist, 她辞职了)."""
    return _EN_PRONOUN.search(text) is not None or _ZH_PRONOUN.search(text) is not None


def introduced(text: str) -> dict[str, str]:
    """The people ``text`` introduces with who they are to the speaker: ``{"Leah": "sister"}`` for "my sister Leah"."""
    found: dict[str, str] = {}
    for pattern in _INTRODUCED:
        for match in pattern.finditer(text):
            name = match["name"]
            if name.lower() not in NOT_NAMES:
                found.setdefault(name, match["relation"].lower())
    return found


def _says_name(text: str, name: str) -> bool:
    if _CJK.match(name):
        return name in text
    return re.search(rf"(?<![\w'’-]){re.escape(name)}(?![\w-])", text) is not None


def with_referents(memories: Sequence[Memory]) -> list[Memory]:
    """``memories`` (of one chat, in the order said) where one that uses a pronoun and names no person itself keeps
    the person named last before it in ``metadata["refers_to"]``, and one that speaks of a person the chat introduced
    with a relation, without that relation's word, keeps the word in ``metadata["known_as"]``."""
    last: str | None = None
    relation_of: dict[str, str] = {}  # each person the chat introduced: who they are to the speaker
    kept: list[Memory] = []
    for memory in memories:
        text = memory.content
        named = people_named(text)
        update: dict[str, list[str]] = {}
        if not named and last is not None and uses_pronoun(text):
            update[REFERS_TO] = [last]
        about = [name for name in relation_of if _says_name(text, name)] + update.get(REFERS_TO, [])
        known = [
            relation_of[n] for n in dict.fromkeys(about) if n in relation_of and relation_of[n] not in text.lower()
        ]
        if known:
            update[KNOWN_AS] = list(dict.fromkeys(known))
        if update:
            memory = memory.model_copy(update={"metadata": {**memory.metadata, **update}})
        kept.append(memory)
        for name, relation in introduced(text).items():
            relation_of[name] = relation
        if named:
            last = named[-1]
    return kept
