"""The words people use for the people in their lives, grouped by relation, in English and Chinese.

A question names a relation in its own words: "who's my boss?" for a memory that says "Dana is
Alice's manager", "where are my mom and dad?" for "Alice's parents live in Fremont", "我妹妹是做什么工作的？"
for "Alice's younger sister Grace is a nurse". Neither BM25 nor the offline word overlap can see that
these are the same relation, and the small offline embedder often cannot either (cross-lingually
least of all). A memory's expanded key (:mod:`flowmem.scoring.keys`) therefore carries, for every
relation its words name, the other words of that relation: the classic thesaurus expansion of
information retrieval, limited to a closed class — kinship, partners, work and care relations —
where the words are few, stable and the same for every user, and where a personal memory's
questions most often name someone by their relation rather than their name.

Each group is one relation; a memory naming any word of a group gets all of them, and the words it is
asked about by without naming it (:data:`ASKED_AS`: a memory about the parents is asked about as "my
mom and dad"; a memory about the mother is not about both, so "mother" does not pull in "parents"). Chinese words are
matched as substrings (no spaces between words); English words as whole words, any case, with an
optional plural or possessive ("sisters", "Alice's sister's").
"""

from __future__ import annotations

import re
from functools import lru_cache

from flowmem.scoring.tokens import tokens

# One relation per group: its English words, then its Chinese words. A word in several groups ("mom" names the
# mother, and is half of "mom and dad") belongs to each.
RELATION_GROUPS: tuple[tuple[str, ...], ...] = (
    ("parents", "parent", "folks", "父母", "爸妈", "爸爸妈妈"),
    ("mother", "mom", "mum", "mommy", "mama", "妈妈", "母亲", "我妈", "老妈"),
    ("father", "dad", "daddy", "papa", "爸爸", "父亲", "我爸", "老爸"),
    ("grandmother", "grandma", "granny", "nana", "grandmom", "外婆", "奶奶", "姥姥", "祖母", "外祖母"),
    ("grandfather", "grandpa", "granddad", "grandad", "外公", "爷爷", "姥爷", "祖父", "外祖父"),
    ("grandparents", "grandparent", "祖父母", "外祖父母"),
    ("sister", "sis", "姐姐", "妹妹", "姐妹", "我姐", "我妹"),
    ("brother", "bro", "哥哥", "弟弟", "兄弟", "我哥", "我弟"),
    ("siblings", "sibling", "兄弟姐妹"),
    (
        "partner",
        "husband",
        "wife",
        "spouse",
        "boyfriend",
        "girlfriend",
        "fiance",
        "fiancé",
        "fiancee",
        "fiancée",
        "老公",
        "老婆",
        "丈夫",
        "妻子",
        "男朋友",
        "女朋友",
        "男友",
        "女友",
        "伴侣",
        "未婚夫",
        "未婚妻",
    ),
    ("manager", "boss", "supervisor", "老板", "上司", "经理", "领导"),
    ("colleague", "coworker", "co-worker", "teammate", "同事"),
    ("friend", "buddy", "pal", "朋友", "闺蜜"),
    ("son", "儿子"),
    ("daughter", "女儿"),
    ("children", "child", "kids", "kid", "孩子"),
    ("aunt", "auntie", "阿姨", "姑姑", "姨妈", "舅妈"),
    ("uncle", "舅舅", "叔叔"),
    ("cousin", "表姐", "表妹", "表哥", "表弟", "堂姐", "堂妹", "堂哥", "堂弟"),
    ("roommate", "flatmate", "housemate", "室友"),
    ("neighbor", "neighbour", "邻居"),
    ("doctor", "physician", "gp", "医生"),
    ("dentist", "牙医"),
    ("physio", "physiotherapist", "physical therapist", "理疗师"),
    ("therapist", "counselor", "counsellor", "心理咨询师", "咨询师"),
    ("teacher", "tutor", "老师"),
    ("coach", "trainer", "教练"),
)

# Words a group's memories are also asked about that do not name the group: "where are my mom and dad?" asks
# about the parents, but a memory about the mother is not about both (one way only).
ASKED_AS: dict[str, tuple[str, ...]] = {
    "parents": ("mom", "dad", "mum", "mother", "father"),
    "grandparents": ("grandma", "grandpa", "grandmother", "grandfather"),
    "siblings": ("sister", "brother"),
}

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
# A sibling's spouse is said with the sibling's word (我姐夫, 我弟媳, 妹夫): not the sibling.
_IN_LAW = {"姐": "(?!夫)", "妹": "(?!夫)", "弟": "(?!媳)"}


@lru_cache(maxsize=1)
def _matchers() -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    out = []
    for group in RELATION_GROUPS:
        english = [w for w in group if not _CJK.search(w)]
        chinese = [w for w in group if _CJK.search(w)]
        alternatives = [rf"\b{re.escape(w)}(?:e?s)?(?:['’]s?)?\b" for w in english] + [
            re.escape(w) + _IN_LAW.get(w[-1], "") for w in chinese
        ]
        out.append((re.compile("|".join(alternatives), re.IGNORECASE), group + ASKED_AS.get(group[0], ())))
    return tuple(out)


def relation_words(text: str) -> list[str]:
    """The words of every relation ``text`` names that ``text`` does not already say, group by group.

    Examples:
        >>> relation_words("Dana is Alice's manager at Brightledger.")
        ['boss', 'supervisor', '老板', '上司', '经理', '领导']
        >>> relation_words("Alice 的外婆今年八十五岁")[:3]
        ['grandmother', 'grandma', 'granny']
        >>> relation_words("We went hiking.")
        []
    """
    said = set(tokens(text))
    out: dict[str, None] = {}
    for pattern, group in _matchers():
        if pattern.search(text):
            for word in group:
                if word not in said and not (_CJK.search(word) and word in text):
                    out.setdefault(word, None)
    return list(out)


def relations_named(text: str) -> frozenset[str]:
    """The relations ``text`` names, each by its group's first word: "my brother lives in Milan" → ``{"brother"}``,
    "我姐姐在上海" → ``{"sister"}`` (whoever else it also names)."""
    return frozenset(group[0] for pattern, group in _matchers() if pattern.search(text))
