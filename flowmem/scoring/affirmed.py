"""A state denied before and said to hold now: "I don't drive" → "passed my test, can finally drive", "I don't work
Fridays" → "I work Fridays now", "I don't have a car" → "bought a car!", 我不喝酒 → 最近开始喝点红酒, 我没有车 → 买车了.

What changed is the polarity of one doing: the older statement negates a verb (and its object, when it has one), the
newer says the same verb holds, as something new — begun ("started eating meat again", 开始喝), acquired ("bought a
car", "got a dog", 买车了, 养了只猫), or done now ("I work Fridays now"). The older statement then no longer holds,
whatever else its words are; a statement that only speaks of the same doing without denying it ("I eat meat on
Sundays") is not touched. Read by structure — a negation before a verb, the same verb said as begun or had, the
object's words shared — not by any list of what people stop or start doing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EN_WORD = re.compile(r"[a-z][a-z'’-]*")
_FUNCTION_WORDS = (
    "a an the my our some any more much no one it this that to at on in of for with and or but so now again too "
    "these days nowadays anymore yet really just finally even"
)
_FUNCTION = frozenset(_FUNCTION_WORDS.split())
# Begun: "started eating meat again", "starting going to the gym"; had: "bought a car", "got a dog", "adopted a cat".
_STARTED = re.compile(r"\b(?:started|starting|began|begun)\s+(?P<verb>[a-z]{2,}?)ing\b(?P<rest>[^,.;!?]*)", re.I)
_ACQUIRED = re.compile(
    r"\b(?:bought|got|adopted|picked\s+up|leased)\s+(?:myself\s+|ourselves\s+)?(?:a|an|our|my)\s+"
    r"(?:(?:new|little|second-?hand|used|first)\s+)?(?P<obj>[a-z][\w-]*)",
    re.I,
)
# Done now, said in the present with a word of newness: "I work Fridays now", "we eat meat again".
_NOW = re.compile(
    r"\b(?:i|we)\s+(?P<verb>[a-z]{2,})\s+(?P<rest>[^,.;!?]*?)\b(?:now|again|these\s+days|nowadays)\b", re.I
)
_ZH_STARTED = re.compile(
    r"(?:开始|又|重新|现在)(?:能|会)?(?P<verb>[吃喝抽开骑做上学用养戴])(?:点|了|起|上)?(?P<obj>[\u4e00-\u9fff]{0,3})"
)
_ZH_ACQUIRED = re.compile(r"(?P<verb>买|有|养|领养)了?(?:一?[辆台只个条套])?(?P<obj>[\u4e00-\u9fff]{1,3}?)了")
# What makes it no news of a state: asked, wished, denied, supposed ("if I started eating meat", "want to buy a car").
_UNREAL = re.compile(
    r"\b(?:if|whether|unless|want(?:s|ed)?\s+to|would|might|could|should|thinking\s+(?:of|about)|don't|didn't|never|"
    r"not)\b[^,.;!?]*$|(?:如果|要是|想|打算|准备|不|没)[^，。！？；]{0,4}$",
    re.I,
)
_EN_NEGATION = re.compile(
    r"\b(?:don['’]?t|do\s+not|doesn['’]?t|does\s+not|never|no\s+longer|not|can['’]?t|cannot|won['’]?t)\s+"
    r"(?:(?:really|even|usually|currently|actually)\s+)?(?P<verb>[a-z]{2,})\b(?P<rest>[^,.;!?]*)",
    re.I,
)
_ZH_NEGATION = re.compile(r"(?:不|没有?|不能|不会)(?P<verb>[吃喝抽开骑做上学用养戴有])(?P<obj>[\u4e00-\u9fff]{0,3})")
_HAVE = {"own": "have", "has": "have", "having": "have", "had": "have"}


_FORMS = (_STARTED, _ACQUIRED, _NOW, _ZH_STARTED, _ZH_ACQUIRED)


def may_affirm(text: str) -> bool:
    """Whether any clause of ``text`` may affirm a doing: one of the forms is in it (a cheap test before reading
    clauses; a clause's match is a match in the whole text)."""
    return any(form.search(text) for form in _FORMS)


@dataclass(frozen=True)
class Affirmed:
    """A doing said to hold now: its verb (a base form, or one Chinese character), the words of its object, the cue."""

    verb: str
    objects: frozenset[str]
    cue: str


def affirmed(clause: str) -> Affirmed | None:
    """The doing ``clause`` says holds now, as new (begun, acquired, done now); ``None`` when it says none."""
    for pattern, verb_of in ((_STARTED, None), (_ACQUIRED, "have"), (_NOW, None)):
        found = pattern.search(clause)
        if found is None or _UNREAL.search(clause[: found.start()]):
            continue
        verb = _base(verb_of or found.group("verb"))
        rest = found.group("obj") if "obj" in found.groupdict() else found.group("rest")
        return Affirmed(verb, _content(rest), found.group())
    for pattern in (_ZH_STARTED, _ZH_ACQUIRED):
        found = pattern.search(clause)
        if found is not None and not _UNREAL.search(clause[: found.start()]):
            verb = (
                "有" if found.group("verb") in ("买", "养", "领养") and pattern is _ZH_ACQUIRED else found.group("verb")
            )
            return Affirmed(verb, frozenset(found.group("obj")) - {"了", "的"}, found.group())
    return None


def denial(old_text: str, said: Affirmed) -> str | None:
    """The words of ``old_text`` that negate the doing ``said`` affirms (``None``: it negates none): the same verb
    after a negation, and — when both name an object — one word of it in common (我不喝酒 / 开始喝点红酒: 酒; "I don't
    eat gluten" is not denied by "started eating meat")."""
    if said.verb.isascii():
        for found in _EN_NEGATION.finditer(old_text):
            if _base(found.group("verb")) == said.verb and _objects_meet(_content(found.group("rest")), said.objects):
                return found.group()
        return None
    for found in _ZH_NEGATION.finditer(old_text):
        if found.group("verb") == said.verb and _objects_meet(frozenset(found.group("obj")), said.objects):
            return found.group()
    return None


def _objects_meet(old: frozenset[str], new: frozenset[str]) -> bool:
    return not old or not new or bool(old & new)


def _base(verb: str) -> str:
    """A verb's base as both sides say it: "eating" / "eat" → eat, "driving" / "drive" → driv, "swimming" → swim."""
    word = _HAVE.get(verb.lower(), verb.lower())
    if word.endswith("ing") and len(word) > 4:
        word = word[:-3]
        if len(word) > 2 and word[-1] == word[-2]:
            word = word[:-1]  # swimm → swim
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _content(words: str) -> frozenset[str]:
    return frozenset(w for w in _EN_WORD.findall(words.lower()) if w not in _FUNCTION and len(w) > 2)
