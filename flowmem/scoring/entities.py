"""Entity mentions without an LLM: the people, pets, places and things a text names, and how the user relates to them.

Rules, from the most to the least telling (the kind a name gets is the most telling rule's that found it):

1. relations: "my sister Ana", "my partner Sam", "my manager Dana", 我的妹妹叫小美 → a person, with the relation;
   a kin word standing for a person in Chinese (我外婆, 我妈, "my 外婆's") is that person, named by the word;
2. pets: the slot table's ``pet_name`` (:mod:`flowmem.scoring.slots`: "my cat Mochi", 我的狗叫旺财) → a pet;
3. places and organisations: a capitalised name after "in / at / to / from / near / around" ("flying to Chicago") is
   a place, and an organisation when it is where the user works or studies (the ``employer`` / ``school`` slots);
   where the user lives (``residence``) is a place in any language (住在…, 搬到…);
4. any other run of capitalised words inside a sentence ("close to the Cheese Board") → a thing;
5. a name already known (found by a rule above in any text, or stored) is a mention wherever it stands — also first
   in its sentence ("Sam and I …"), where a capital letter says nothing.

Limits, said plainly: a name that only ever comes first in its sentence is found once another sentence names it
(rule 5); an all-lower-case name ("sam") is never found; a Chinese name only after 叫, or as a kin word; pronouns
("she") are not resolved; a capitalised word that is no name ("Couch to 5K") can pass as a thing. The LLM path of
``entity_memory_op`` has none of these limits.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from flowmem.scoring.slots import DEFAULT_RULES, SlotRules

EntityKind = Literal["person", "pet", "place", "organisation", "thing"]
ENTITY_KINDS: tuple[EntityKind, ...] = ("person", "pet", "place", "organisation", "thing")
# When two rules disagree, the more telling one names the kind: "my manager Dana" beats "at Dana's".
_RANK: dict[str, int] = {"person": 4, "pet": 4, "organisation": 3, "place": 2, "thing": 1}

_NAME = r"(?P<v>(?-i:[A-Z][\w'’-]*[a-z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?))"
_ROLE = (
    r"(?:(?:little|big|older|younger|baby|twin|best|new|old|ex)\s+)?(?P<r>sister|brother|mom|mum|mother|dad|father|"
    r"partner|wife|husband|boyfriend|girlfriend|fianc[ée]e?|friend|colleague|co-?worker|boss|manager|cousin|aunt|uncle|"
    r"son|daughter|niece|nephew|neighbou?r|roommate|flatmate|grandma|grandmother|grandpa|grandfather|therapist|"
    r"doctor|physio|teacher|coach)"
)
_ZH_KIN = (
    r"外婆|外公|奶奶|爷爷|姥姥|姥爷|妈妈|妈|爸爸|爸|姐姐|妹妹|哥哥|弟弟|老公|老婆|丈夫|妻子|男朋友|女朋友|男友|女友|"
    r"闺蜜|朋友|同事|老板|经理|室友|舅舅|阿姨|叔叔|姑姑"
)
_RELATIONS = (
    re.compile(
        rf"\b(?:my|our)\s+{_ROLE}(?:'s\s+name\s+is|\s+is\s+called|\s+is\s+named|\s+named|\s+called|,)?\s+{_NAME}", re.I
    ),
    re.compile(rf"我(?:的)?(?P<r>{_ZH_KIN})(?:叫|是)(?P<v>[^，。！？；,.!?;\s的]{{1,4}})"),
    re.compile(rf"我(?:的)?(?P<r>{_ZH_KIN})(?!叫|是)"),
    re.compile(r"\b(?:my|our)\s+(?P<r>[\u4e00-\u9fff]{1,3})(?=['’]s\b|\s|$)", re.I),
)
_SHORT_KIN = {"妈": "妈妈", "爸": "爸爸"}
_PEOPLE = (  # someone the user does things with: "Grace and I", "with Sam", "Sam's parents"
    re.compile(rf"{_NAME}\s+and\s+(?:I|me)\b"),
    re.compile(rf"\bwith\s+{_NAME}"),
    re.compile(rf"{_NAME}['’]s\s+(?:parents|mom|mum|dad|mother|father|birthday|family|sister|brother|wife|husband)\b"),
)
_ORGANISATION = re.compile(
    rf"\b(?:(?:company|startup|firm|agency|studio|bank|school|university|college)\s+(?:called|named)|"
    rf"works?\s+(?:at|for)|working\s+(?:at|for)|joined)\s+{_NAME}",
    re.I,
)
_PLACE = re.compile(
    r"\b(?:in|at|to|from|near|around|into|visit|visiting|visited)\s+(?:the\s+)?"
    r"(?P<v>(?-i:[A-Z][\w'’-]*[a-z][\w'’-]*(?:\s+[A-Z][\w'’-]*[a-z][\w'’-]*){0,3}))",
    re.I,
)
_CAPITALISED = re.compile(r"(?<![\w'’])(?:[A-Z][\w'’-]*[a-z][\w'’-]*|[A-Z]{3,})(?:\s+(?:[A-Z][\w'’-]*[a-z][\w'’-]*))*")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SENTENCE = re.compile(r"(?<=[.!?])[\"')\]]*\s+|(?<=[。！？；;])\s*|\n+")
_NEVER_WORDS = (  # capitalised words that name no entity: months, days, greetings, "I"
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday "
    "i i'm i've i'll i'd ok okay hi hello hey thanks yes no oh ugh haha lol also and but so the a an "
    "mr mrs ms dr mom dad"
)
_NEVER = frozenset(_NEVER_WORDS.split())
_LANGUAGE = re.compile(r"^[A-Z][a-z]+(?:ese|ish|ian|ic)$")  # "in Japanese", "in Spanish": a language, not a place


@dataclass(frozen=True)
class Mention:
    """One entity a sentence names.

    Attributes:
        name: The name as written ("Sam", "North Berkeley", "外婆").
        kind: person, pet, place, organisation or thing.
        sentence: The sentence that names it (what the offline description quotes).
        relation: How the user relates to it, when the sentence says ("partner", "cat", "外婆"); else "".
    """

    name: str
    kind: EntityKind
    sentence: str
    relation: str = ""


def entity_key(name: str) -> str:
    """The key one entity is known by, however its name is cased or spaced ("north  berkeley")."""
    return " ".join(name.casefold().split())


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (``. ! ?`` before a space, Chinese end marks, line breaks)."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def find_mentions(
    text: str, *, user: str = "", known: Mapping[str, EntityKind] | None = None, rules: SlotRules = DEFAULT_RULES
) -> list[Mention]:
    """Every entity ``text`` names, by the rules of this module, one mention per entity and sentence.

    Args:
        text: A message or memory in the user's own words.
        user: The user's id; the user is no entity of their own ("I'm Alice").
        known: Names found before (by :func:`entity_key`) with their kinds: mentions wherever they stand.
        rules: The slot rules that find pets, homes, employers and schools.
    """
    found: list[Mention] = []
    known = dict(known or {})
    ignored = _user_words(user)
    for sentence in sentences(text):
        for key, mention in _in_sentence(sentence, known, ignored, rules).items():
            if known.get(key) and _RANK[known[key]] > _RANK[mention.kind]:
                mention = Mention(mention.name, known[key], mention.sentence, mention.relation)
            known[key] = mention.kind
            found.append(mention)
    return found


def _in_sentence(
    sentence: str, known: Mapping[str, EntityKind], ignored: set[str], rules: SlotRules
) -> dict[str, Mention]:
    here: dict[str, Mention] = {}

    def add(name: str, kind: EntityKind, relation: str = "") -> None:
        name = re.sub(r"['’]s$", "", " ".join(name.split())).strip("'’-")  # "Sam's parents": Sam
        key = entity_key(name)
        if not key or key in _NEVER or key in ignored or _LANGUAGE.match(name):
            return
        old = here.get(key)
        if old is None or _RANK[kind] > _RANK[old.kind] or (relation and not old.relation):
            kind = kind if old is None or _RANK[kind] >= _RANK[old.kind] else old.kind
            here[key] = Mention(name, kind, sentence, relation or (old.relation if old else ""))

    _by_relation(sentence, add)
    _by_slot(sentence, rules, add)
    for pattern in _PEOPLE:
        for match in pattern.finditer(sentence):
            add(match.group("v"), "person")
    for match in _ORGANISATION.finditer(sentence):
        add(match.group("v"), "organisation")
    for match in _PLACE.finditer(sentence):
        add(match.group("v"), "place")
    for match in _CAPITALISED.finditer(sentence):
        if sentence[: match.start()].strip():  # first in its sentence, a capital letter says nothing
            add(match.group(0), "thing")
    for key, kind in known.items():
        if key not in here and _names(sentence, key):
            add(_as_written(sentence, key), kind)
    return here


def _by_relation(sentence: str, add: _Add) -> None:
    for pattern in _RELATIONS:
        for match in pattern.finditer(sentence):
            relation = _SHORT_KIN.get(match.group("r").lower(), match.group("r").lower())
            name = match.groupdict().get("v") or relation
            add(name, "person", relation)


def _by_slot(sentence: str, rules: SlotRules, add: _Add) -> None:
    for slot in rules.find(sentence):
        value = _as_written(sentence, slot.value)
        if slot.slot.startswith("pet_name"):
            add(value, "pet", slot.slot.partition(":")[2] or "pet")
        elif slot.slot == "residence" and _CJK.search(value):
            add(value, "place", "home")
        elif slot.slot in ("residence", "employer", "school"):
            kind: EntityKind = "place" if slot.slot == "residence" else "organisation"
            for match in _CAPITALISED.finditer(value):
                add(match.group(0), kind, "home" if kind == "place" else slot.slot)


class _Add(Protocol):  # find_mentions' add(), as the rule helpers call it
    def __call__(self, name: str, kind: EntityKind, relation: str = "") -> None: ...


def _names(sentence: str, key: str) -> bool:
    if _CJK.search(key):
        return key in sentence
    return re.search(rf"(?<![\w]){re.escape(key)}(?![\w])", sentence.casefold()) is not None


def _as_written(sentence: str, value: str) -> str:
    """``value`` (lower case, spaces collapsed) as ``sentence`` writes it, when it does."""
    at = sentence.casefold().find(value)
    return sentence[at : at + len(value)] if at >= 0 else value


def _user_words(user: str) -> set[str]:
    words = [w for w in re.split(r"[\s_.\-]+", user.casefold()) if w]
    return {*words, " ".join(words)} if words else set()
