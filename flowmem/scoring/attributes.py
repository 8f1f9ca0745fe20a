"""Any attribute the speaker states with a copula: "my GP is Dr Osei", "my commute is 45 minutes on the train",
"our WiFi password is sunflower22", 我的微信名叫小鱼, 我们公司在陆家嘴.

The slot table (:mod:`flowmem.scoring.slots`) knows a dozen attributes by their phrasings. People state many more
things about themselves, and most of them in one shape: a possessed noun, a copula, a value. "My X is V" says what
the speaker's one X is — the copula with a possessed singular noun names the value it has now — so a later "my X is
W" of the same X says it is W now: the same attribute restated with another value, whatever X is. Read as a slot
named ``attr:<x>`` (``attr:gp``, ``attr:commute``, ``attr:微信名``), it is superseded as every slot is: the newer
statement of it expires the older, found through the slot index, however far apart their wordings are.

Why it holds beyond the wordings it was tried on: nothing here lists attributes. What is read is the grammar of a
statement of identity — a first-person possessive (my, our; 我, 我的, 我们, 我家), a noun, a present copula (is, 's;
是, 叫, 在) and what follows up to the end of its clause. What is left out is what that grammar does not make
single-valued:

- people (my sister, my friend, 我妈, 对象): a person is not an attribute of the speaker, and "my sister is a nurse"
  and "my sister is in Paris" are two facts of the sister; a role one person holds for the speaker at a time (my GP,
  my landlord, my boss; 老板, 医生) is an attribute when what follows is a name;
- what follows that is not a value: a progressive or a passive ("my back is killing me", "my car is being fixed"),
  a negation, a comparison, a clause ("my point is that…", "my guess is…": the nouns of talk);
- questions, and the past ("my car was…") and future, which the copula "is" does not say.
"""

from __future__ import annotations

import re

from flowmem.scoring.change import EXCLUSIVE_ROLES
from flowmem.scoring.people import NOT_NAMES, PERSON_NOUN, PERSON_WORDS, ZH_KIN, ZH_TITLES

ATTRIBUTE = "attr"
"""The prefix of a copular attribute's slot name: ``attr:commute``."""

_EN = re.compile(
    r"\b(?:my|our)\s+(?P<attr>(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)(?:\s+(?:now|still|currently))?"  # "…food now is"
    r"\s*(?:\s+is|['’]s)\s+"
    r"(?P<adv>(?:now|still|currently|probably|actually|basically|officially)\s+)*"
    r"(?P<v>(?:[^,.;:!?\n()]|[.@](?=\w)|(?<=\d),(?=\d{3})){1,60})",
    re.IGNORECASE,
)
# The same said of one of the speaker's people: "Leo's teacher is Miss Patel", "my son's coach is Dev", "Dad's GP is
# Dr Mistry" — ``attr:<noun>@<who>``, theirs, replaced only by theirs.
_EN_THEIRS = re.compile(
    rf"(?:^|(?<=[\s(\"“]))(?:(?:my|our)\s+(?P<noun>{PERSON_NOUN})|(?P<name>(?-i:[A-Z][a-z][\w-]*)))['’]s\s+"
    r"(?P<attr>(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)\s+is\s+"
    r"(?P<adv>(?:now|still|currently|probably|actually|basically|officially)\s+)*"
    r"(?P<v>(?:[^,.;:!?\n()]|[.@](?=\w)|(?<=\d),(?=\d{3})){1,60})",
    re.IGNORECASE,
)
# A one-holder role said the other way round: "Rob's my manager", "Dr Osei is our new GP" — the speaker's role.
_EN_HOLDER = re.compile(
    r"(?:^|(?<=[\s(]))(?P<v>(?:(?-i:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+)?(?-i:[A-Z][a-z][\w'-]*)(?:\s+(?-i:[A-Z][a-z][\w'-]*))?)"
    rf"(?:\s+is|['’]s)\s+(?:now\s+|still\s+)?(?:my|our)\s+(?:new\s+)?(?P<attr>{'|'.join(sorted(EXCLUSIVE_ROLES))})\b",
    re.IGNORECASE,
)
# Texting leaves "my" out: "broadband's with BT now", "energy's with Octopus" — a lowercase noun opening the sentence,
# with the provider it is with (a name); not a pronoun's or a person's ("it's with Tom", "mum's with Dad").
_EN_BARE = re.compile(
    r"^\W*(?P<attr>(?-i:[a-z][a-z-]{2,}))['’]s\s+(?:now\s+|still\s+)?with\s+"
    r"(?P<v>(?-i:[A-Z][\w&'’-]*)(?:\s+(?-i:[A-Z][\w&'’-]*)){0,2})"
)
_NOT_BARE = frozenset(
    "it that what there here he she who everything everyone nothing life this one let".split()  # noqa: SIM905
) | set(PERSON_WORDS)
_ZH = re.compile(
    r"(?:我们家|我们的|我家的?|我们|我的|我)(?:现在的|目前的|现在|目前)?(?![们的]|现在|目前)(?P<attr>[\u4e00-\u9fff]{1,4}?)"
    r"(?:现在|目前|也|还)?(?:是|叫|在)(?P<v>[^，。！？；,.!?;\s]{1,12})"
)
# Chinese leaves the owner out as often as not: 公司在国贸 (my company is in Guomao), and says where a thing went with
# 搬到/迁到 (公司搬到望京了): the thing's place now.
_ZH_PLACE = re.compile(
    r"(?:^|(?<=[，。！？；：:\s]))(?:我们?的?|我家的?)?(?P<attr>[\u4e00-\u9fff]{2,4}?)"
    r"(?:上个?月|上周|去年|前天|昨天|今天|最近|现在|目前|也|已经|终于)*"
    r"(?:在|搬到|搬去|迁到|迁去|搬进)了?(?P<v>[^，。！？；,.!?;\s]{1,12})"
)
# A role said without its owner at the start of a clause (班主任姓何, 班主任是宋老师): the one holder of it in the
# speaker's household (a child's teacher, the family's nanny).
_ZH_ROLE = re.compile(
    r"(?:^|(?<=[，。！？；：:\s]))(?:新的?|现在的?)?(?P<attr>班主任|老师|教练|房东|保姆|领导|老板|医生|牙医|律师|会计)"
    r"(?:现在|目前|也|还)?(?P<cop>是|叫|姓)(?P<v>[\u4e00-\u9fff]{1,4})"
)
# The same roles said by their verbs: 我们组现在归刘总管 (the manager), 朵朵现在跟王老师学 (the teacher).
_ZH_ROLE_VERBS = (
    (re.compile(r"(?:归|由)(?P<v>[\u4e00-\u9fff]{1,2}(?:总|经理|主任|工|姐|哥))(?:来)?管"), "领导"),
    (re.compile(r"跟(?:着)?(?P<v>[\u4e00-\u9fff]{1,2}老师)学"), "老师"),
)
# A name said with its title (宋老师, 王阿姨, 刘总): the surname is who it is.
_ZH_TITLE = re.compile(rf"^(?P<surname>[\u4e00-\u9fff]{{1,2}}?)(?:{ZH_TITLES})$")
# A noun cut inside the adverb after it (我姐现在在上海上班: 姐现, of 现在): no noun
_ZH_ADVERB_CUT = re.compile(r"[现目已最终]$")
# What opens a clause without being a thing: pronouns, demonstratives, adverbs of time and aspect, "everyone".
_ZH_NOT_THING = re.compile(r"^(?:[我咱你您他她它这那哪谁啥现正刚都也还就又在大每各不没]|其实)|什么|自己|大家")
# Nouns of talk and thought: "my point is", "my guess is", 我的意思是 — what follows is a clause, not a value.
_TALK = frozenset(
    " ".join(
        (
            "point question guess problem issue worry concern idea thought feeling opinion view answer excuse bad",
            "fault god goodness gosh head mind heart life day week year time turn plan hope wish dream fear",
        )
    ).split()
)
_ZH_TALK = frozenset(" ".join(("意思 想法 看法 问题 建议 感觉 意见 天 心", "目标 计划 打算 理想 梦想")).split())
# Words that stand between a noun and its copula or open what follows without being a value.
_NOT_VALUE = re.compile(
    r"^(?:not|n't|no|never|that|so|too|very|more|less|like|as|about|getting|going|being|gonna|always|also|just|the\s+same"
    r"|[a-z]+ing\b)",
    re.IGNORECASE,
)
_EN_FILLER = re.compile(r"\s+(?:lol|haha|btw|tbh|now|these\s+days|again|though|too|anyway)$", re.IGNORECASE)
# Someone named as they are introduced: "a guy called Ian", "this woman named Priya Shah".
_INTRODUCED = re.compile(
    r"^(?:a|an|this|some)\s+(?:[a-z]+\s+){1,2}?(?:called|named)\s+(?P<name>(?-i:[A-Z][\w'-]*)(?:\s+(?-i:[A-Z][\w'-]*))?)",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:(?:called|named)\s+)?(?:a|an|the)\s+|^(?:called|named)\s+", re.IGNORECASE)
# Where another clause begins after a value: "my blood type is AB and I reside in Lyon".
_NEXT_CLAUSE = re.compile(r"\s+(?:and|but|so|because|cause|cos|though|although|while|which|who)\b.*$", re.IGNORECASE)
_ZH_NAME = re.compile(r"[\u4e00-\u9fff]{1,3}(?:医生|老师|总|经理|阿姨|师傅|姐|哥)$|^[\u4e00-\u9fff]{2,3}$")
_ZH_TIME = re.compile(r"[天年月日周号点时]")
_ZH_PEOPLE = (frozenset(k.removeprefix("我") for k in ZH_KIN.split("|")) | set("妈爸姐哥弟妹")) - {"老板", "领导"}
_ZH_ROLES = frozenset(
    ["老板", "领导", "医生", "牙医", "老师", "班主任", "教练", "房东", "律师", "会计", "保姆", "阿姨"]
)
_MAX_WORDS = 6
# A statement that is not asserted: a condition, a wish, a doubt (如果我住在上海就好了, "if my rent is 900").
_UNASSERTED = re.compile(r"\b(?:if|wish|hope|whether|unless|suppose)\b|如果|要是|假如|希望|但愿", re.IGNORECASE)
# What a value with a copula or a second verb of its own is: a clause ("my puppy's name is Max": whose name).
_CLAUSE = re.compile(r"\b(?:is|are|was|were|am|and\s+(?:lives|works|is|has))\b", re.IGNORECASE)
# Words before the noun that say which one, not what: "my new email", "my current GP" are "my email", "my GP".
_WHICH = frozenset(["new", "old", "current", "latest", "actual", "real", "main", "usual", "present"])
# Verbs that name who holds a one-holder role of the speaker's, read as that role's attribute ("I report to Craig Bell"
# is "my manager is Craig Bell"): a name (capitalised words) after them.
_ROLE_VERBS = (
    (
        re.compile(
            r"\b(?:I|we)\s+(?:now\s+)?report\s+(?:directly\s+)?(?:in\s+)?to\s+"
            r"(?P<v>(?-i:[A-Z])[\w'’-]+(?:\s+(?-i:[A-Z])[\w'’-]+)?)",
            re.I,
        ),
        "manager",
    ),
    (  # the car one drives, named ("I drive a Golf", "driving a Corolla these days"; not "driving to Leeds")
        re.compile(
            r"(?:\b(?:I|we)(?:['’]m|\s+am|['’]re|\s+are)?\s+(?:now\s+|still\s+)?|^\s*|[.!?]\s+)"
            r"(?:drive|driving)\s+(?:a|an|the|my|our)\s+(?:new\s+|used\s+|second-hand\s+|\d{4}\s+)?"
            r"(?P<v>(?-i:[A-Z])[\w'’-]+(?:\s+(?-i:[A-Z0-9])[\w'’-]+)?)",
            re.I,
        ),
        "car",
    ),
)
# What a Chinese noun is not made of: aspect, coverbs, measure words and the verbs of having, living and doing
# (我养了一只叫豆豆的仓鼠, 如果我住在上海).
_ZH_NOT_NOUN = re.compile(r"[了过着把被让给对跟和与从往向一个只住养做当去来回看吃喝买卖开学读有要会想]")


def attribute_slots(text: str) -> dict[str, str]:
    """``{attr:<noun>: value}`` for every attribute ``text`` states of its speaker with a copula (see the module
    docstring); the first statement of each."""
    found: dict[str, str] = {}
    for sentence in re.split(r"(?<=[.!?。！？\n])\s", text):
        if sentence.rstrip().endswith(("?", "？")) or _UNASSERTED.search(sentence):
            continue
        for match in _EN.finditer(sentence):
            read = _english(match)
            if read is not None:
                found.setdefault(f"{ATTRIBUTE}:{read[0]}", read[1])
        for pattern, attr in _ROLE_VERBS:  # a one-holder role said by its verb: "I report to Craig Bell now"
            if (filled := pattern.search(sentence)) is not None:
                found.setdefault(f"{ATTRIBUTE}:{attr}", filled.group("v").lower())
        for match in _EN_THEIRS.finditer(sentence):
            who = (match.group("noun") or match.group("name")).lower()
            read = _english(match) if who not in NOT_NAMES else None
            if read is not None:
                found.setdefault(f"{ATTRIBUTE}:{read[0]}@{who}", read[1])
        bare = _EN_BARE.match(sentence)
        if bare is not None and bare.group("attr") not in _NOT_BARE:
            found.setdefault(f"{ATTRIBUTE}:{bare.group('attr')}", bare.group("v").lower())
        for match in _EN_HOLDER.finditer(sentence):
            if match.group("v").split()[0].lower() not in NOT_NAMES:
                found.setdefault(f"{ATTRIBUTE}:{match.group('attr').lower()}", match.group("v").lower())
        for match in [*_ZH.finditer(sentence), *_ZH_PLACE.finditer(sentence)]:
            read = _chinese(match)
            if read is not None:
                found.setdefault(f"{ATTRIBUTE}:{read[0]}", read[1])
        for pattern, attr in _ZH_ROLE_VERBS:
            if (filled := pattern.search(sentence)) is not None and (titled := _ZH_TITLE.match(filled["v"])):
                found.setdefault(f"{ATTRIBUTE}:{attr}", titled.group("surname"))
        for match in _ZH_ROLE.finditer(sentence):
            value = match.group("v")
            if match.group("cop") == "姓":
                value = value[:1]  # 姓李，四川人: the surname
            elif (titled := _ZH_TITLE.match(value)) is not None:
                value = titled.group("surname")
            elif match.group("cop") != "叫" or len(value) > 3:
                continue  # 老板是个好人: not who, what they are like
            found.setdefault(f"{ATTRIBUTE}:{match.group('attr')}", value)
    return found


def _english(match: re.Match[str]) -> tuple[str, str] | None:
    said = match.group("attr").split()
    if any(word[:1].isupper() and word[1:].islower() for word in said):  # Grace, not GP or WiFi
        return None  # a name in it: someone's ("my sister Grace is a nurse"), not the speaker's attribute
    words = [word.lower() for word in said]
    while len(words) > 1 and words[0] in _WHICH:
        words = words[1:]
    attr, head = " ".join(words), words[-1]
    raw = match.group("v").strip()
    if (introduced := _INTRODUCED.match(raw)) is not None:
        raw = introduced.group("name")  # "my boss is a guy called Ian": Ian
    if (
        head in _TALK
        or (head.endswith("s") and not head.endswith("ss"))
        or _NOT_VALUE.match(raw)
        or _CLAUSE.search(raw)
    ):
        return None
    if any(word in PERSON_WORDS for word in words[:-1]) or (
        head in PERSON_WORDS and not (head in EXCLUSIVE_ROLES and raw[:1].isupper())
    ):
        return None  # a person, or a role said to be something other than someone named ("my boss is a nightmare")
    value = _ARTICLE.sub("", _EN_FILLER.sub("", _NEXT_CLAUSE.sub("", raw))).split()
    if not value or len(value) > _MAX_WORDS:
        return None
    return attr, " ".join(value).lower()


def _chinese(match: re.Match[str]) -> tuple[str, str] | None:
    attr, value = match.group("attr"), match.group("v").removesuffix("了").removesuffix("的")
    if (
        attr in _ZH_TALK
        or _ZH_TIME.search(attr)
        or _ZH_NOT_NOUN.search(attr)
        or _ZH_NOT_THING.search(attr)
        or _ZH_ADVERB_CUT.search(attr)
        or attr in _ZH_PEOPLE
        or not value
    ):
        return None
    if attr in _ZH_ROLES and not _ZH_NAME.search(value):
        return None
    if attr in _ZH_ROLES and (titled := _ZH_TITLE.match(value)) is not None:
        value = titled.group("surname")  # 我的班主任是宋老师: 宋, as 班主任姓宋 says
    return attr, value
