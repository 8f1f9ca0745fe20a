"""How much personal information a chat message carries, 0–3, without an LLM.

Per sentence: a first-person statement scores 1; a personal-life word (home, work, family,
health, food, plans, likes, …) adds 1; a time expression or a specific detail (a number, a
capitalised name mid-sentence) adds 1. A statement of a single-valued fact (:mod:`flowmem.scoring.slots`:
"I'm single", "New number: 555-0199", 我是初级设计师) scores 3: a later message may supersede it.
A question to the assistant ("can you…?", "what should…?") counts nothing, and neither do
pleasantries. The message scores its best sentence.
So "We just moved to Berkeley!" scores 2, "I'm flying to Chicago next Thursday" 3,
"thanks, that's helpful" 0 and "Can you recommend a book?" 0.
"""

from __future__ import annotations

import re

from flowmem.scoring.slots import DEFAULT_RULES
from flowmem.timeexpr import has_time_words

_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
_FIRST_PERSON = re.compile(r"\b(i|i'm|im|i've|i'd|i'll|my|me|mine|myself|we|we're|we've|our|us)\b|我", re.I)
_PERSONAL = re.compile(
    r"\b(live|lives|living|moved?|moving|home|apartment|house|work(?:s|ing)?|job|boss|manager|team|company|"
    r"started?|quit|love|loves|like|likes|hate|prefer|favou?rite|allergic|allergy|vegetarian|vegan|eat|eating|"
    r"plan|plans|planning|going|trip|travel|flight|flying|visit|visiting|bought|adopted|married|birthday|"
    r"sister|brother|mom|mum|dad|mother|father|parents?|partner|wife|husband|son|daughter|kids?|cat|dog|"
    r"grand(?:ma|pa|mother|father)|friend|ran|run|running|hike|hiking|gym|learn|learning|class|doctor|dentist|"
    r"physio|appointment|knee|injur\w*|hurt|sick|diagnos\w*|promot\w*|salary|school|study|studying)\b"
    r"|住|搬|工作|上班|喜欢|讨厌|爱|过敏|计划|打算|准备|去了|买了|生日|妈妈|爸爸|父母|姐姐|妹妹|哥哥|弟弟|外婆|奶奶|"
    r"爷爷|外公|老公|老婆|男朋友|女朋友|孩子|猫|狗|跑步|爬山|医生|牙医|约了|吃素|膝盖",
    re.I,
)
_QUESTION_START = re.compile(
    r"^\s*(can|could|would|will|should|shall|what|how|why|where|when|which|who|is|are|do|does|did|any|"
    r"请问|能不能|可以|怎么|什么|为什么|哪)\b",
    re.I,
)
_DETAIL = re.compile(r"\d|(?<=[a-z,] )[A-Z][a-z]+")
_PLEASANTRY = re.compile(
    r"^\s*(thanks?|thank you|ok(?:ay)?|cool|great|nice|sure|yes|no|yeah|hi|hello|hey|bye|good (?:night|morning)|lol|"
    r"谢谢|好的|嗯|哈哈|你好|晚安)\b",
    re.I,
)


def info_score(text: str) -> int:
    """The message's personal-information score, 0 (none) to 3 (a specific personal fact)."""
    if not text.rstrip().endswith(("?", "？")) and DEFAULT_RULES.find(text):  # whole: "me at a.b@c.com" has dots
        return 3
    best = 0
    for sentence in _SENTENCE.findall(text) or [text]:
        sentence = sentence.strip()
        if not sentence or (sentence.endswith(("?", "？")) and _QUESTION_START.search(sentence)):
            continue
        if _PLEASANTRY.search(sentence) and len(sentence.split()) <= 4:
            continue
        if not _FIRST_PERSON.search(sentence):
            continue
        score = 1
        if _PERSONAL.search(sentence):
            score += 1
        if has_time_words(sentence) or _DETAIL.search(sentence):
            score += 1
        best = max(best, score)
    return best
