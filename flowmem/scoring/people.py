"""The one table of how a chat names people: the nouns that name someone by their tie to the speaker, the words a
capitalised word must not be to count as a name, and the Chinese kin words.

Read by :mod:`~flowmem.scoring.referents` (who "he" is), :mod:`~flowmem.scoring.change` (whom a changed value is
said of), :mod:`~flowmem.scoring.others` (the slots of the user's people) and :mod:`~flowmem.scoring.values` (a
name as a value). They are closed classes of the language, not anyone's phrasings.
"""

from __future__ import annotations

import re

# Nouns that name a person by their tie to the speaker: "my sister", "her boss", "the coach".
PERSON_WORDS: tuple[str, ...] = tuple(
    " ".join(
        (
            "parents parent mom mum mother dad father sister brother sibling wife husband partner girlfriend boyfriend",
            "fiance fiancee fiancé fiancée friend friends boss manager roommate flatmate housemate son daughter kid",
            "kids child children baby grandma grandpa grandmother grandfather nana granny aunt uncle cousin niece",
            "nephew coach teacher doctor therapist neighbour neighbor colleague coworker landlord ex bestie bff",
            "grandad granddad gran nan grandson granddaughter stepmum stepmom stepdad stepson stepdaughter",
            "in-laws in-law mother-in-law father-in-law sister-in-law brother-in-law son-in-law daughter-in-law",
            "mate mates twin godmother godfather",
        )
    ).split()
)
PERSON_NOUN = rf"(?:{'|'.join(sorted(map(re.escape, PERSON_WORDS), key=len, reverse=True))})"
THIRD_PERSON_PRONOUNS = frozenset(["he", "she", "him", "her", "his", "hers"])

# Capitalised words that are no one's name: the speaker and the listener, function words, chat fillers, and the
# verbs and adverbs a sentence opens with ("Visited Nana…", "Finally moved…").
NOT_NAMES = frozenset(
    " ".join(
        (
            "i im i'm i've i'd i'll ok okay lol omg hi hey yes no the a an my we you it this that so and but then",
            "just also still well oh visited went got had made saw met called texted told asked took dropped picked",
            "finally update today btw fyi anyway anyways plus yeah yep haha wow ugh um right alright news he she",
            "they his her their him them tomorrow tonight yesterday monday tuesday wednesday thursday friday saturday",
            "sunday morning evening",
        )
    ).split()
)

# The speaker's own words (a closed class), one table for every question asked of them: as a subject (I, we), as an
# object (me, us), and as an owner (my, our). Their contractions ("I'm", "we've") are the subject's.
SPEAKER_SUBJECTS = ("i", "we")
SPEAKER_OBJECTS = ("me", "us")
SPEAKER_OWNERS = ("my", "mine", "our", "ours")
SPEAKER_WORDS = frozenset(
    [
        *SPEAKER_SUBJECTS,
        *SPEAKER_OBJECTS,
        *SPEAKER_OWNERS,
        *(f"{w}{c}" for w in SPEAKER_SUBJECTS for c in ("'m", "'ve", "'d", "'ll", "'re")),
    ]
)

# What a chat puts before a sentence's subject and is no part of it: discourse markers and interjections ("ok so Leah
# moved to Denver", "btw Tom's at Globex now", "Update: Priya got a job at Monzo"). A closed class of the language.
DISCOURSE_OPENER = (
    r"(?:(?:ok(?:ay)?|so|btw|by\s+the\s+way|well|anyway[s]?|oh|ah|also|and|but|plus|fyi|um+|hey|yeah|yep|lol|haha"
    r"|omg|wow|ugh|right|alright|guess\s+what|(?:quick\s+|small\s+|big\s+)?(?:update|news))(?![\w'’])[\s,:!.-]*)+"
)

# "Alice lives" → "I live": the third-person verbs the first-person slot patterns follow "I" with.
THIRD_PERSON_VERBS: dict[str, str] = {"lives": "live", "works": "work", "studies": "study", "has": "have", "is": "am",
                                      "attends": "attend", "goes": "go", "eats": "eat"}  # fmt: skip

# Chinese kin and person words, as a subject (外婆搬到了杭州, 我弟在读高三) or before 叫 and a name (男朋友叫小林).
ZH_KIN = (
    "外婆|外公|奶奶|爷爷|姥姥|姥爷|妈妈|爸爸|我妈|我爸|父母|姐姐|哥哥|弟弟|妹妹|我姐|我哥|我弟|我妹|老公|老婆|男朋友|女朋友|男友|女友|"
    "对象|朋友|同事|老板|领导|室友|孩子|儿子|女儿|表姐|表哥|表妹|表弟|闺蜜|发小|哥们|兄弟|"
    # 妈 and 爸 alone, as a chat says them (妈下周一搬进养老院), not in 妈呀
    "妈(?![呀啊呢])|爸(?![呀啊呢])"
)

ZH_KIN_WORD = re.compile(rf"(?:{ZH_KIN})")  # one kin word (fullmatch: a person said by their tie alone)

# Someone other than the speaker opening a Chinese clause (its subject): a kin word, a pronoun, a name by its shapes
# (小李, 老王, 阿芳; 王阿姨, 陈工, 刘总, 李老师), a capitalised Latin name, or 我的 and what is the speaker's
# (我的房东). ``who``: the person, when named.
# The titles a Chinese name is said with (宋老师, 王阿姨, 刘总, 陈工): the name is its surname and the title.
ZH_TITLES = "阿姨|老师|医生|大夫|师傅|总|工|姐|哥|经理|主任"
ZH_NAMED = (
    r"(?!小时|老是|小心|老实|老家|小学|老年|小区|阿姨)[小老阿][\u4e00-\u9fff](?![\u4e00-\u9fff]?[区城镇村庄家里])"
    rf"|[\u4e00-\u9fff]{{1,2}}(?:{ZH_TITLES}|叔叔)"
)
ZH_SOMEONE = re.compile(rf"^\s*(?:我\s*的|(?P<who>(?:我\s*)?(?:{ZH_KIN})|{ZH_NAMED})|他|她|它|(?-i:[A-Z][a-z]))")
# What a Chinese chat puts before a clause's subject and is no part of it (对了，小丽搬到深圳了): a closed class.
ZH_DISCOURSE_OPENER = r"(?:对了|跟你说|告诉你|哦对|话说|还有|另外|然后|对|哈哈+|嗯+|诶|欸|唉)[，,、\s]*"

# The person nouns that say a sex (a closed class, English and Chinese), and those that say several people: "he" can
# stand for "my brother", not for "my sister" or "my parents"; a noun that says neither (friend, boss, 对象) for both.
_MALE = frozenset(
    " ".join(
        (
            "dad father brother husband boyfriend fiance fiancé son grandpa grandfather grandad granddad uncle nephew",
            "stepdad stepson father-in-law brother-in-law son-in-law godfather grandson",
            "外公 爷爷 姥爷 爸爸 我爸 爸 哥哥 弟弟 我哥 我弟 哥 弟 老公 男朋友 男友 儿子 表哥 表弟 哥们 兄弟",
        )
    ).split()
)
_FEMALE = frozenset(
    " ".join(
        (
            "mom mum mother sister wife girlfriend fiancee fiancée daughter grandma grandmother nana granny gran nan",
            "aunt niece stepmum stepmom stepdaughter mother-in-law sister-in-law daughter-in-law godmother",
            "granddaughter",
            "外婆 奶奶 姥姥 妈妈 我妈 妈 姐姐 妹妹 我姐 我妹 姐 妹 老婆 女朋友 女友 女儿 表姐 表妹 闺蜜",
        )
    ).split()
)
_SEVERAL = frozenset(["parents", "friends", "kids", "children", "mates", "in-laws", "父母"])


def sex_of(relation: str) -> str | None:
    """``"m"`` or ``"f"`` for a person noun that says a sex ("brother", 姐姐), ``"p"`` for one that says several
    people ("parents"), ``None`` for one that says neither ("friend", 同事)."""
    word = relation.casefold()
    if word in _MALE:
        return "m"
    if word in _FEMALE:
        return "f"
    return "p" if word in _SEVERAL else None
