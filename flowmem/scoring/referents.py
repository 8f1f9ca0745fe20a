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

A person is also spoken of by the relation alone ("my boyfriend works in Leeds", 我男朋友在上海工作), and then by a
pronoun ("he got transferred to York", 他调到杭州了): the pronoun stands for the last person the chat spoke of whom it
can stand for — "he" not for "my sister", 她 not for 我老公 (the relation nouns with a sex are a closed class). What
such a turn says is read for its changes and slots as if it named them (:func:`resolved`: "my boyfriend got
transferred to York"), so a pronoun does not hide whose fact changed; its words as said stay the record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from flowmem.schema.memory import Memory
from flowmem.scoring.people import DISCOURSE_OPENER, NOT_NAMES, PERSON_NOUN, ZH_KIN, sex_of

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
# Where a clause starts: the text's start, a break, a conjunction, and any discourse marker after them.
_CLAUSE_START = (
    rf"(?:^\s*|(?<=[.!?;,])\s*|(?:(?<=\band)|(?<=\bbut)|(?<=\bso)|(?<=\bbecause))\s+)(?:{DISCOURSE_OPENER})?"
)
_EN_PRONOUN = re.compile(rf"{_CLAUSE_START}(?:he|she|he's|she's|him|her|his)\b", re.I)
# A person spoken of by the relation alone: "my boyfriend", "our youngest son", 我男朋友, 我的室友 (not "my friends").
_EN_RELATION = re.compile(
    rf"\b(?:my|our)\s+(?:(?:little|big|older|younger|elder|eldest|youngest|best|new|twin)\s+)?(?P<relation>{PERSON_NOUN})"
    r"(?![\w'’-])",
    re.I,
)
_ZH_RELATION = re.compile(rf"(?P<mine>我(?:的)?)?(?P<relation>{ZH_KIN})")
# A pronoun as the subject of a clause, and the sex it says: "he"/"she" (and "he's"), 他/她 not in 他们/她们.
# …or its owner ("Her new job is at Stripe": whose job), after any discourse marker ("Anyway she moved to Denver").
_EN_SUBJECT = re.compile(rf"{_CLAUSE_START}(?P<p>he|she|his|her)\b(?!['’]d\b)", re.I)
_ZH_SUBJECT = re.compile(r"(?:^|(?<=[，。！？；,.!?;\s]))(?P<p>[他她])(?![们們])")
_PRONOUN_SEX = {"he": "m", "she": "f", "his": "m", "her": "f", "他": "m", "她": "f"}
_POSSESSIVE = frozenset({"his", "her"})
_CJK = re.compile(r"[\u3400-\u9fff]")
_ZH_PRONOUN = re.compile(r"(?:^|[，。！？；,.!?;\s])[他她]")


def people_named(text: str) -> list[str]:
    """The people ``text`` names, in order, by how it says them (see the module docstring)."""
    return [name for _, name in _names_at(text)]


def _names_at(text: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for pattern in (*_EN_PEOPLE, _EN_DOER, _ZH_PEOPLE):
        for match in pattern.finditer(text):
            name = match["name"]
            if name and name.lower() not in NOT_NAMES:
                found.append((match.start("name"), name))
    return sorted(found)


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


@dataclass(frozen=True)
class _Mention:
    """A person a turn speaks of: how to say them ("Marcus", "my boyfriend", 我男朋友), their relation to the speaker
    when said ("boyfriend"), and the sex a pronoun for them has (None: either)."""

    said: str
    relation: str | None
    sex: str | None


def _mentions(text: str, relation_of: dict[str, str]) -> list[_Mention]:
    """The people ``text`` speaks of, in order: by name, or by a relation alone ("my boyfriend", 我男朋友)."""
    found: list[tuple[int, _Mention]] = []
    for at, name in _names_at(text):
        relation = relation_of.get(name)
        found.append((at, _Mention(name, relation, sex_of(relation) if relation else None)))
    named_at = {at for at, _ in found}
    if _CJK.search(text):
        for match in _ZH_RELATION.finditer(text):
            kin = match["relation"]  # 我姐 is a kin word of its own
            relation = kin.removeprefix("我")
            found.append((match.start(), _Mention("我" + relation, relation, sex_of(kin))))
    else:
        for match in _EN_RELATION.finditer(text):
            if any(match.end() < at <= match.end() + 12 for at in named_at):
                continue  # "my sister Leah": Leah, said just after
            relation = match["relation"].lower()
            found.append((match.start(), _Mention(f"my {relation}", relation, sex_of(relation))))
    return [mention for _, mention in sorted(found, key=lambda item: item[0])]


def _subject_sex(text: str) -> str | None:
    """The sex of the first pronoun opening a clause of ``text`` ("he got transferred": m), None when none does."""
    match = _EN_SUBJECT.search(text) or _ZH_SUBJECT.search(text)
    return _PRONOUN_SEX[match["p"].lower()] if match else None


def _antecedent(spoken: list[_Mention], sex: str | None) -> _Mention | None:
    """The last person spoken of whom a pronoun of ``sex`` can stand for (any, for an object pronoun: None)."""
    for mention in reversed(spoken):
        if mention.sex != "p" and (sex is None or mention.sex in (None, sex)):
            return mention
    return None


def with_referents(memories: Sequence[Memory]) -> list[Memory]:
    """``memories`` (of one chat, in the order said) where one that uses a pronoun and speaks of no person itself
    keeps the person it stands for in ``metadata["refers_to"]`` (the last one spoken of before it whom the pronoun
    can stand for), and one that speaks of a person the chat introduced with a relation, without that relation's
    word, keeps the word in ``metadata["known_as"]``."""
    spoken: list[_Mention] = []  # the people the chat spoke of, in order
    relation_of: dict[str, str] = {}  # each person the chat introduced: who they are to the speaker
    kept: list[Memory] = []
    for memory in memories:
        text = memory.content
        relation_of.update(introduced(text))
        here = _mentions(text, relation_of)
        update: dict[str, list[str]] = {}
        about: list[str] = [name for name in relation_of if _says_name(text, name)]
        if not here and uses_pronoun(text):
            antecedent = _antecedent(spoken, _subject_sex(text))
            if antecedent is not None:
                update[REFERS_TO] = [antecedent.said]
                about.append(antecedent.said)
                if antecedent.relation and antecedent.said not in relation_of:
                    relation_of.setdefault(antecedent.said, antecedent.relation)
        known = [
            relation_of[n] for n in dict.fromkeys(about) if n in relation_of and relation_of[n] not in text.lower()
        ]
        if known:
            update[KNOWN_AS] = list(dict.fromkeys(known))
        if update:
            memory = memory.model_copy(update={"metadata": {**memory.metadata, **update}})
        kept.append(memory)
        spoken += here
    return kept


def resolved(memory: Memory) -> str:
    """``memory``'s words with the pronouns opening its clauses said as the person they stand for
    (``metadata["refers_to"]``): "he got transferred to York" said of "my boyfriend" reads "my boyfriend got
    transferred to York", 他调到杭州了 said of 我男朋友 reads 我男朋友调到杭州了. What a change or a slot is read
    from, so a pronoun does not hide whose fact it is; the words as said stay the record."""
    text = memory.content
    refers = memory.metadata.get(REFERS_TO)
    if not isinstance(refers, list) or not refers or not isinstance(refers[0], str) or not refers[0].strip():
        return text
    who = refers[0]
    first = _EN_SUBJECT.search(text) or _ZH_SUBJECT.search(text)
    if first is None:
        return text
    sex = _PRONOUN_SEX[first["p"].lower()]
    pattern = _ZH_SUBJECT if _CJK.match(first["p"]) else _EN_SUBJECT

    def said(match: re.Match[str]) -> str:
        pronoun = match["p"].lower()
        if _PRONOUN_SEX[pronoun] != sex:
            return match[0]
        opens = match.start("p") == 0 or text[: match.start("p")].rstrip()[-1:] in ".!?"
        person = who[:1].upper() + who[1:] if opens else who
        whose = f"{person}'s" if pronoun in _POSSESSIVE else person  # "her new job" is "my sister's new job"
        return match[0][: match.start("p") - match.start()] + whose

    return pattern.sub(said, text)
