"""The single-valued facts of the user's people: "Nana moved into Rosehill", "my sister Cleo works at Riverside
General", "visited Nana at her house in Whitby", 外婆搬到了杭州.

The slot table (:mod:`flowmem.scoring.slots`) is written in the first person. A person the user talks about has a
home, an employer and a school as the user does, and they change the same way, so the same table reads them: a
clause whose subject is another person is read with that person as its speaker, and the slots it fills are
qualified by who (``residence@nana``), so one person's facts replace only that person's, never the user's. Who is
read by structure: a capitalised name or "my" + a person noun (sister, roommate, …; 外婆, 我弟 in Chinese) opening a
sentence, followed by a verb; or, in a sentence that names exactly one other person, a possessive his/her/their
("at her house in Whitby" is Nana's house when Nana is the one named).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from flowmem.scoring.occupations import EN_OCCUPATION
from flowmem.scoring.people import (
    DISCOURSE_OPENER,
    NOT_NAMES,
    PERSON_NOUN,
    SPEAKER_OBJECTS,
    SPEAKER_OWNERS,
    SPEAKER_SUBJECTS,
    THIRD_PERSON_VERBS,
    ZH_DISCOURSE_OPENER,
    ZH_KIN,
    ZH_NAMED,
    ZH_TITLES,
)

if TYPE_CHECKING:
    from flowmem.scoring.slots import SlotMatch

_NAME = r"(?-i:[A-Z][a-z][\w'-]*)"
_ADVERBS = "just|finally|now|still|officially|also|recently"
# One's pets are among one's people here: "my dog Pip weighs 12kg", "our cat Luna is 14" (weight@pip, age@luna)
_PET_NOUN = "dog|puppy|cat|kitten|rabbit|bunny|hamster|guinea\\s+pig|horse|pony|parrot|tortoise|budgie|ferret"
# What someone is doing that says where they live or work ("Ahmed's driving for Bolt now"; not "Sam's wedding")
_DOING = "living|staying|working|driving|teaching|studying|renting|training|nursing|doing"
# What one is, said with 's: the states the slot table reads ("Leah's vegetarian", "Tom's retired"): 's is "is".
_STATE = "vegetarian|vegan|pescatarian|single|married|engaged|divorced|pregnant|retired|unemployed|freelance"
# Which one of one's people: "my best friend Dev", "my little brother", "my eldest".
_WHICH_ONE = "(?:best|older|younger|little|big|baby|eldest|oldest|youngest|twin|new|old|late)"
# "my brother's just moved", "Jules's moved out": 's is "has" before an adverb or a past participle — not the
# possessive of "my brother's girlfriend works", which says nothing of the brother.
# A sentence opening with someone else and a verb: "Nana moved into", "my sister Cleo works at", "Jules has moved";
# not a subject of two ("Anna and I broke up", "Sam and Lee moved"): whose fact it is, is not one person's.
_OPENS = re.compile(
    rf"(?:^|(?<=[.!?;\n])|(?<=\s—)|(?<=\s-))\s*(?:{DISCOURSE_OPENER})?(?P<who>(?:(?:(?:my|our)\s+(?:{_WHICH_ONE}\s+)?)?(?P<noun>{PERSON_NOUN}|{_PET_NOUN})(?:\s+(?P<named>{_NAME}))?)"
    rf"|(?P<name>{_NAME}))(?!\s+(?:and|&)\s)(?:['’]s(?=\s+(?:{_ADVERBS}|been|got|gone|[a-z]+ed|in|at|back|an?|{_DOING}|{_STATE})\b|\s+\d))?"
    rf"(?:\s+(?:has|have|had|{_ADVERBS})){{0,2}}\s+"
    # not a heading: "Quick update: I accepted…", "Big news: we moved…" open with no one
    r"(?=[a-z]|(?<=['’]s\s)\d)(?![\w'’-]+\s*:)",
    re.IGNORECASE,
)
# A name written in lower case, as texting does ("sam's a nurse at the LGI", "jess works at the co-op"), read only
# before what says work or home of a person: 's + an occupation or a doing, works / lives, a job got or started.
_TEXTED_NAME = re.compile(
    rf"^\s*(?:{DISCOURSE_OPENER})?(?P<name>(?-i:[a-z]{{3,12}}))(?:(?P<is>['’]s)\s+(?=an?\s+{EN_OCCUPATION}|(?:{_DOING})\b)"
    r"|\s+(?=(?:works|lives|got\s+(?:the|a)\s+(?:new\s+)?job|started\s+at)\b))"
)
# Lower-case words that open such a sentence and are no one's name
_NOT_TEXTED_NAMES = NOT_NAMES | frozenset(
    (
        "she", "they", "who", "what", "that", "this", "there", "here", "everyone", "everybody", "someone",
        "somebody", "nobody", "noone", "anyone", "mine", "yours", "hers", "theirs", "ours", "work", "life", "rent",
        "school", "office", "team", "company", "one", "each", "both", "all", "none", "which", "whoever", "nan",
    )
)  # fmt: skip
# A Chinese clause opening with one of the speaker's people: what follows, to the sentence's end, is said of them
# (和我哥商量好了，妈下周一搬进颐和养老院).
# …or by name, with or without the tie (我姐小丽, 小丽, 阿强), after any discourse marker (对了，小丽搬到深圳了):
# the name is who, as "my sister Leah" is Leah.
_ZH_OPENS = re.compile(
    rf"(?:^|(?<=[，,。！？；\n]))\s*(?:{ZH_DISCOURSE_OPENER})?(?:(?:我的?)?(?P<who>{ZH_KIN})(?P<named>{ZH_NAMED})?"
    rf"|(?P<alone>{ZH_NAMED}))(?=[^，。！？；\s的])"
)
# A capitalised word inside a sentence, not after a word of place ("in Whitby", "at Brightwell"): a person's name.
_NAMED = re.compile(rf"(?P<before>\b[A-Za-z]+),?\s+(?P<name>{_NAME})")
_PLACE_WORDS = frozenset("in at to from near on into of for the".split())  # noqa: SIM905
_POSSESSIVE = re.compile(r"\b(?:his|her|their)\b", re.IGNORECASE)
# A sentence opening with a person's thing: "My sister Leah's new place is…", "Tom's job is…" (theirs, as "my …")
_OWNER_OPENS = re.compile(
    rf"\s*(?:{DISCOURSE_OPENER})?(?:(?:my|our)\s+(?P<noun>{PERSON_NOUN})\s+)?(?P<name>{_NAME})['’]s\s+"
    r"(?=(?:new|current|old|first)\b)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?;\n。！？；]+[.!?;\n。！？；]*")
# The verb after another person opening a sentence, as "I" would say it: the slot table's, and those of a start.
_THIRD = {**THIRD_PERSON_VERBS, "starts": "start", "joins": "join", "moves": "move", "gets": "get", "does": "do"}
_NOT_VERBS = frozenset({"was", "always", "perhaps", "thus", "its", "this", "yes", "plus", "less", "unless"})


def _as_i_say_it(rest: str) -> str:
    """``rest`` with its first word, a verb in the third person, as "I" says it: the slot table's ("works", "lives"),
    and any other ("drives" → "drive", "teaches" → "teach", "studies" → "study"); the slot table then decides
    whether it states anything."""
    first = re.match(r"[a-z]+\b", rest, re.IGNORECASE)
    if first is None:
        return rest
    word = first.group().lower()
    if word in _THIRD:
        base = _THIRD[word]
    elif len(word) < 4 or word in _NOT_VERBS or not word.endswith("s") or word.endswith("ss"):
        return rest
    elif word.endswith("ies"):
        base = word[:-3] + "y"
    elif word.endswith(("ches", "shes", "sses", "xes")):
        base = word[:-2]
    else:
        base = word[:-1]
    return base + rest[first.end() :]


def _may_name(word: str | None) -> bool:
    """Whether a capitalised ``word`` may be a person's name: not a function word, an adverb or a verb that opens a
    sentence ("Finally moved…", "Visited Nana…", "Loving my new flat…": a participle of six letters or more; Ming and
    Xing are names)."""
    if word is None:
        return True
    plain = re.sub(r"['’]s$", "", word).lower()  # "It's", "Mum's"
    return (
        plain not in NOT_NAMES
        and not plain.endswith("ly")
        and not (plain.endswith("ing") and len(plain) >= 6)
        # a past verb opening a sentence ("Accepted a role…", "Started at…"), not a name ending so (Alfred, Mohammed)
        and not (plain.endswith("ed") and len(plain) >= 6 and not plain.endswith(("red", "med")))
    )


def people_slots(text: str, find: Callable[[str], list[SlotMatch]]) -> dict[str, str]:
    """``{slot@who: value}`` for the facts ``text`` states about people other than its speaker (``find``: the slot
    table's matcher, :meth:`flowmem.scoring.slots.SlotRules.find`)."""
    found: dict[str, str] = {}
    for who, reading, start in people_readings(text):
        for match in find(reading):
            if match.end > start and f"{match.slot}@{who}" not in found:
                found[f"{match.slot}@{who}"] = match.value
    return found


def people_readings(text: str) -> list[tuple[str, str, int]]:
    """Each sentence of ``text`` about another person, as they would say it: (who, the reading, where their own words
    start in it)."""
    return [reading for sentence in _SENTENCE.finditer(text) for reading in _readings(sentence.group())]


def said_of_someone(text: str, at: int) -> bool:
    """Whether the sentence of ``text`` holding position ``at`` opens with another person and their verb ("Tom got
    poached by Sparks Ltd", "Priya's jumped ship to PwC"): what it states is theirs, not the speaker's — up to a
    clause of the speaker's own ("My sister moved to Leeds and I moved to York"). Chinese: the subject the clause
    holding ``at`` has, said or carried over from the clause before (小丽从腾讯离职了，去了字节)."""
    if not text.isascii():
        return _zh_subject_at(text, at) not in (None, _SPEAKER)
    for sentence in _SENTENCE.finditer(text):
        if sentence.start() <= at < sentence.end():
            opens = _OPENS.match(sentence.group())
            texted = _TEXTED_NAME.match(sentence.group())
            someone = (opens is not None and _may_name(opens.group("name"))) or (
                texted is not None and texted.group("name") not in _NOT_TEXTED_NAMES
            )
            own = _OWN_SUBJECT.search(text, sentence.start(), at + 3)  # the statement's own subject too
            return someone and own is None
    return False


_OWN_SUBJECT = re.compile(rf"\b(?:{'|'.join(SPEAKER_SUBJECTS)})(?![\w-])", re.IGNORECASE)


_SPEAKER = "\x00speaker"  # the speaker as a subject (no one's name)
_ZH_SPEAKER_OPENS = re.compile(rf"(?:{ZH_DISCOURSE_OPENER})?(?:我们?|咱们?)(?![姐哥弟妹爸妈])")
# …or with a thing of theirs (小丽的瑜伽课改到周五了): whose it is
_ZH_WHOSE = re.compile(
    rf"\s*(?:{ZH_DISCOURSE_OPENER})?(?:(?:我的?)?(?P<who>{ZH_KIN})(?P<named>{ZH_NAMED})?|(?P<alone>{ZH_NAMED}))的"
)
_ZH_CLAUSE = re.compile(r"[^，,。！？；\n]+")


def _zh_subject_at(text: str, at: int) -> str | None:
    """The subject of the Chinese clause of ``text`` holding ``at``: another person (their name, else their tie), the
    speaker (:data:`_SPEAKER`), or ``None`` (none said since the sentence began). A clause that leaves its subject out
    has the one before it (小丽从腾讯离职了，去了字节: 小丽 left and went)."""
    subject: str | None = None
    for clause in _ZH_CLAUSE.finditer(text):
        if clause.start() > at:
            break
        if text[clause.start() - 1 : clause.start()] in "。！？；\n":
            subject = None  # a new sentence
        opens = _ZH_OPENS.match(text, clause.start()) or _ZH_WHOSE.match(text, clause.start())
        if opens is not None:
            subject = _zh_who(opens)
        elif _ZH_SPEAKER_OPENS.match(text[clause.start() :].lstrip()):
            subject = _SPEAKER
    return subject


def _zh_who(opens: re.Match[str]) -> str:
    """Whom a Chinese clause opening (:data:`_ZH_OPENS`) names: the name when it gives one, else the tie."""
    return opens.group("named") or opens.group("alone") or opens.group("who").removeprefix("我")


def someone_else_at(text: str, at: int) -> str | None:
    """Whom the sentence of ``text`` holding position ``at`` is about when it is another person: the one it opens
    with, after any discourse marker — one of the speaker's people ("my sister Leah", "my cat Luna") or a name and a
    verb of theirs ("Leah lives in Austin now", "Tom got promoted", "Leah's at Globex") — in a sentence where the
    speaker is not a subject too (no I, me, we, us: "Acme laid me off", "Yoga moved to Fridays for me" are the
    speaker's); lower case. ``None``: the speaker's, or no one's. Chinese: the subject of the clause holding ``at``
    (:func:`_zh_subject_at`)."""
    if not text.isascii():
        subject = _zh_subject_at(text, at)
        return None if subject == _SPEAKER else subject
    said = _sentence_at(text, at)
    if said is not None:
        opens = _OPENS.match(said)
        if opens is None or _SPEAKER_TOO.search(said) or not _may_name(opens.group("name")):
            return None
        if (
            opens.group("name")
            and not opens.group().rstrip().endswith(("'s", "’s"))
            and not _ACTS.match(said, opens.end())
        ):
            return None  # "Moved to Denver", "Lyon, what a city": a capitalised word without a doing of its own
        who = opens.group("named") or opens.group("name") or opens.group("noun")
        return re.sub(r"['’]s$", "", who).lower()
    return None


def _sentence_at(text: str, at: int) -> str | None:
    """The sentence of ``text`` holding position ``at`` (an empty one holds its own start), or ``None``."""
    return next((m.group() for m in _SENTENCE.finditer(text) if m.start() <= at < max(m.end(), m.start() + 1)), None)


def names_person(text: str, who: str) -> bool:
    """Whether ``text`` names the person ``who`` (as :func:`someone_else_at` gives them): as a word, or in Chinese,
    which has no spaces to bound a name, anywhere — 周老师 also by 周 alone (班主任姓周)."""
    if not who.isascii():
        return who in text or re.sub(rf"(?:{ZH_TITLES})$", "", who) in text
    return re.search(rf"(?<![\w-]){re.escape(who)}(?![\w-])", text, re.IGNORECASE) is not None


def with_owner(kept: str | None, text: str) -> str | None:
    """``kept`` (what is left of ``text``) said of the person ``text`` opens with, when it no longer names them ("works
    at Acme" of "My sister Leah lives in Leeds and works at Acme": "My sister Leah works at Acme")."""
    opens = _OPENS.match(text) if kept else None
    if not kept or opens is None or not _may_name(opens.group("name")):
        return kept
    who = opens.group("who")
    if who.lower() in kept.lower():
        return kept
    return f"{who[:1].upper()}{who[1:]} {kept.lstrip()}"


def speaker_at(text: str, at: int) -> bool:
    """Whether the sentence of ``text`` holding position ``at`` has the speaker as a subject (I, me, we, us; 我, 我们
    opening the clause or the one it carries on)."""
    if not text.isascii():
        return _zh_subject_at(text, at) == _SPEAKER
    said = _sentence_at(text, at)
    return said is not None and _SPEAKER_TOO.search(said) is not None


def for_someone_unnamed(text: str, at: int) -> bool:
    """Whether the sentence of ``text`` holding ``at`` is said of "her" or "him" and not of the speaker: a third-person
    pronoun as object or owner and no I, me, my, we, us or our ("first day at Globex for her", "yoga moved to Thursdays
    for him", "his new job's at Stripe") — not one as a doer, who may act on the speaker's thing ("she bumped the
    lisinopril up to 20mg")."""
    sentence = _sentence_at(text, at) or ""
    return _HIM_OR_HER.search(sentence) is not None and _ANY_FIRST_PERSON.search(sentence) is None


_HIM_OR_HER = re.compile(r"\b(?:him|her|his|hers)\b", re.IGNORECASE)
_ANY_FIRST_PERSON = re.compile(
    rf"\b(?:{'|'.join((*SPEAKER_SUBJECTS, *SPEAKER_OBJECTS, *SPEAKER_OWNERS))})(?![\w-])", re.IGNORECASE
)
# I or we as a subject, or me, us as an object — not "I mean", "I think", "I guess" said beside another's fact
_SPEAKER_TOO = re.compile(
    rf"\b(?:(?:{'|'.join((*SPEAKER_SUBJECTS, *SPEAKER_OBJECTS))})"
    r"(?<!\bi(?=\s+(?:mean|meant|think|thought|guess|reckon|suppose|believe|know)\b)))(?![\w-])"
    rf"|\b(?:{'|'.join(SPEAKER_SUBJECTS)})['’](?:m|ve|d|ll|re)\b",
    re.IGNORECASE,
)
# A doing after a name: a verb in the third person, a past, or a copula / auxiliary ("Leah lives", "Tom moved", "Sam
# got", "Ana is"): the name is someone's who does it.
_ACTS = re.compile(
    r"(?:[a-z]+(?<![^aeiou]s)s|[a-z]+ed|got|went|left|quit|became|took|made|found|lost|bought|sold|had|has|was|is"
    r"|did|came|gave|began|ran|won|broke|put|says|said)\b",
    re.IGNORECASE,
)


# "she"/"he" later in a sentence that opened with one person is that person ("Mia moved schools, she's at Greenhill
# Primary now"), and so is their "her"/"his"
_SHE = re.compile(r"\b(?:she|he)(?:['’]s|\s+is)\b|\b(?P<who>she|he)\s+(?P<verb>[a-z]+)\b|\b(?P<whose>her|his)\b", re.I)


def _they_as_i(rest: str, noun: str | None) -> str:
    """``rest`` with "she"/"he" (and "her"/"his") as "I" ("my"), unless the person opening the sentence is named by a
    noun of the other sex ("My sister said he lives in Leeds": someone else)."""
    if noun is not None and noun.lower() in _HIS:
        wanted = {"he", "his"}
    elif noun is not None and noun.lower() in _HER:
        wanted = {"she", "her"}
    else:
        wanted = {"she", "he", "her", "his"}

    def said(match: re.Match[str]) -> str:
        word = match.group().split()[0].split("'")[0].split("’")[0].lower()
        if word not in wanted:
            return match.group()
        if match.group("whose"):
            return "my"
        if match.group("who"):
            return "I " + _as_i_say_it(match.group("verb"))
        return "I'm"

    return _SHE.sub(said, rest)


_HER = frozenset(
    (
        "sister",
        "mum",
        "mom",
        "mother",
        "wife",
        "girlfriend",
        "daughter",
        "aunt",
        "auntie",
        "gran",
        "grandma",
        "granny",
        "nan",
        "nana",
        "niece",
        "fiancee",
        "fiancée",
        "stepmum",
        "stepmom",
        "stepdaughter",
        "stepsister",
    )
)
_HIS = frozenset(
    (
        "brother",
        "dad",
        "father",
        "husband",
        "boyfriend",
        "son",
        "uncle",
        "grandad",
        "granddad",
        "grandpa",
        "nephew",
        "fiance",
        "fiancé",
        "stepdad",
        "stepson",
        "stepbrother",
    )
)


def _readings(sentence: str) -> list[tuple[str, str, int]]:
    """``sentence`` read as each other person it is about would say it: (who, the reading, where the person's
    own words start in the reading — a slot must end after it)."""
    readings: list[tuple[str, str, int]] = []
    owner = _OWNER_OPENS.match(sentence)
    if owner and _may_name(owner.group("name")):  # "My sister Leah's new place is in Lisbon": "my new place is…"
        who = owner.group("name").lower()
        return [(who, f"my {_they_as_i(sentence[owner.end() :], owner.group('noun'))}", 2)]
    opens = _OPENS.match(sentence)
    texted = _TEXTED_NAME.match(sentence) if not opens else None
    if texted and texted.group("name") not in _NOT_TEXTED_NAMES:
        rest = sentence[texted.end() :]
        be = "I'm" if texted.group("is") else "I"
        readings.append((texted.group("name"), f"{be} {_they_as_i(_as_i_say_it(rest), None)}", len(be)))
    if opens and _may_name(opens.group("name")):
        who = re.sub(r"['’]s$", "", opens.group("named") or opens.group("name") or opens.group("noun")).lower()
        rest = sentence[opens.end() :]
        rest = _they_as_i(_as_i_say_it(rest), opens.group("noun"))
        # 's as "is" before where one is ("Grandma's in a care home now", "Mum's back in Leeds"), what one is ("Sam's a
        # nurse at the LGI") or is doing ("Ahmed's driving for Bolt now"): "I'm in…", "I'm a…"
        is_there = re.search(r"['’]s\s+$", opens.group()) and re.match(
            rf"(?:in|at|back|an?|{_DOING}|{_STATE})\b|\d", rest
        )
        be = "I'm" if is_there else "I"
        readings.append((who, f"{be} {rest}", len(be)))
    for zh in _ZH_OPENS.finditer(sentence):
        readings.append((_zh_who(zh), f"我{sentence[zh.end() :]}", 1))
    named = {
        match.group("name").lower()
        for match in _NAMED.finditer(sentence)
        if match.group("before").lower() not in _PLACE_WORDS and _may_name(match.group("name"))
    }
    possessive = _POSSESSIVE.search(sentence)
    if possessive and len(named) == 1 and not readings:
        reading = f"I {_POSSESSIVE.sub('my', sentence)}"
        readings.append((named.pop(), reading, possessive.start() + 2))
    return readings
