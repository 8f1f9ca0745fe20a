"""How much personal information a chat message carries, 0–3, without an LLM.

Per sentence: a first-person statement scores 1; a personal-life word (home, work, family,
health, food, plans, likes, …) adds 1; a time expression or a specific detail (a number, a
capitalised name mid-sentence) adds 1. A statement of a single-valued fact (:mod:`flowmem.scoring.slots`:
"I'm single", "New number: 555-0199", 我是初级设计师) scores 3: a later message may supersede it.
A sentence without a first-person word scores 2 when it names an appointment: an activity (a dinner,
a party, a meeting, a dentist, 吃饭, 聚会, 面试, …) and when it is, to the hour, day, weekend, week
or span of days ("Dinner with Sofia on Friday the 28th at 8 pm", 和小李周五28号晚上8点吃饭) — a plan
with a date is the user's own even when written as a note. A time without an activity ("The shop
closes at 9 pm", "Tomorrow is Friday") or an activity in a month or a year ("The Olympics are in
2028") still scores nothing. A question to the assistant ("can you…?", "what should…?") counts
nothing, and neither do pleasantries and short acknowledgements ("I know", "me too"). The message scores its
best sentence.
So "We just moved to Berkeley!" scores 3 (a new home), "I'm flying to Chicago next Thursday" 3, "Party on
Saturday at 7!" 2, "thanks, that's helpful" 0 and "Can you recommend a book?" 0.
"""

from __future__ import annotations

import re
from datetime import datetime

from flowmem.scoring.slots import DEFAULT_RULES
from flowmem.timeexpr import extract_all, has_time_words

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
# Things people put in a calendar. Words that are as often something else ("show", "play", "run",
# "test", "train", "review") are left out: a false one lets a note about the world through.
_ACTIVITY = re.compile(
    r"\b(dinner|lunch|breakfast|brunch|drinks|coffee|party|bbq|barbecue|picnic|meeting|meetup|appointment|"
    r"date night|wedding|birthday|anniversary|interview|exam|flight|concert|gig|match|race|marathon|class|"
    r"lesson|practice|rehearsal|recital|call|visit|dentist|doctor|check-?up|surgery|therapy|haircut|massage|"
    r"housewarming|reunion|ceremony|graduation|shift|deadline|hike|workout|yoga|movie|conference|"
    r"presentation|celebration|shower|funeral|vacation|sleepover|playdate|vet|session|tournament|"
    r"reservation|tour|camping|book club|game night|dance|volunteering)s?\b"
    r"|吃饭|吃火锅|吃烧烤|早餐|午餐|晚餐|晚饭|午饭|早饭|聚餐|聚会|派对|约会|会议|开会|面试|考试|婚礼|生日|"
    r"旅行|旅游|出差|航班|体检|复查|手术|看病|看牙|上课|比赛|演唱会|音乐会|看电影|见面|喝咖啡|喝酒|爬山|"
    r"徒步|健身|瑜伽|牙医|庆祝|典礼|毕业|答辩|值班|截止|搬家|团建",
    re.I,
)
# An appointment is a point or a short span: a month or a year is a period, not a date to keep.
_APPOINTMENT = frozenset({"hour", "day", "weekend", "week", "range"})
# Only the size of the time is read, never the date, so any reference will do.
_REFERENCE = datetime(2025, 1, 6, 12, 0)
_QUESTION_START = re.compile(
    r"^\s*(can|could|would|will|should|shall|what|how|why|where|when|which|who|is|are|do|does|did|any|"
    r"请问|能不能|可以|怎么|什么|为什么|哪)\b",
    re.I,
)
_DETAIL = re.compile(r"\d|(?<=[a-z,] )[A-Z][a-z]+")
_PLEASANTRY = re.compile(
    r"^\s*(thanks?|thank you|ok(?:ay)?|cool|great|nice|sure|yes|no|yeah|hi|hello|hey|bye|good (?:night|morning)|lol|"
    r"i know|i see|i agree|i guess|me too|same here|got it|of course|"
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
            if _is_appointment(sentence):
                best = max(best, 2)
            continue
        score = 1
        if _PERSONAL.search(sentence):
            score += 1
        if has_time_words(sentence) or _DETAIL.search(sentence):
            score += 1
        best = max(best, score)
    return best


def noise_kind(text: str) -> str:
    """Why a message :func:`info_score` scores 0 has nothing to remember, in a word or three: ``question``
    (every sentence asks the assistant), ``pleasantry`` (pleasantries, maybe with a question: "thanks! any
    more?"), else ``no first-person statement`` (nor an appointment with its day or hour)."""
    kinds = set()
    for sentence in _SENTENCE.findall(text) or [text]:
        sentence = sentence.strip()
        if not sentence:
            continue
        if sentence.endswith(("?", "？")) and _QUESTION_START.search(sentence):
            kinds.add("question")
        elif _PLEASANTRY.search(sentence) and len(sentence.split()) <= 4:
            kinds.add("pleasantry")
        else:
            return "no first-person statement"
    return "pleasantry" if "pleasantry" in kinds else "question" if kinds else "no first-person statement"


def _is_appointment(sentence: str) -> bool:
    """An activity with the hour, day, weekend, week or days it happens ("Dinner with Sofia on Friday at 8")."""
    if _ACTIVITY.search(sentence) is None or not has_time_words(sentence):
        return False
    return any(found.granularity in _APPOINTMENT for found in extract_all(sentence, _REFERENCE, lean="neutral"))
