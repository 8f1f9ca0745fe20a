"""What a newer statement changes about an older one — by what it is about, not by how it is worded.

The slot table (:mod:`flowmem.scoring.slots`) knows a dozen attributes by their phrasings; people change
many more things than that (their medication, their car, the day of a child's practice, their salary, a
typo in their e-mail) in wordings nobody listed. Three structural signals cover them:

- **An ending** ("sold the Civic", "took me off the apixaban", "not seeing Jonah anymore", 飞度卖了,
  Kevin 离职了): a verb that ends a state, and what it ends — the words of its object (or, with nothing
  after the verb, of its subject). An older statement holding those words is no longer current. The verbs
  are a closed class (a few dozen words in each language), not phrasings of anyone's chat; the thing ended
  is read from the sentence.
- **A new value for the same thing** ("coach moved Eli's practice to Thursdays", standup 改到 Thursday,
  涨薪了 现在税前一万五): a change word and a typed value (:mod:`flowmem.scoring.values`: a weekday, a clock
  time, a day of the month, an amount, an e-mail, a phone, a handle). An older statement with a value of
  the same kind, a different content, and a word of the same subject in the same clause held the old value.
- **A correction** ("actually it's Tuesday not Monday", "ugh fat fingers. August 14", 更正一下): a
  correction word and a typed value, about the statement just before it (or one naming the old value).

A changed value is written into the older statement (:func:`rewrite`): "Eli's soccer practice is Thursdays
5pm at Lakeview fields" stays true in everything else it said, so supersession is per fact, not per message;
an ended state leaves what else its message said (:func:`remainder`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from flowmem.scoring.affirmed import Affirmed, affirmed, may_affirm
from flowmem.scoring.name_kinds import NameFrame, name_frame, same_place
from flowmem.scoring.occupations import OCCUPATION_HEADS, WORK_WORDS, ZH_OCCUPATION_WORDS, ZH_WORK_WORDS
from flowmem.scoring.people import (
    NOT_NAMES,
    PERSON_NOUN,
    PERSON_WORDS,
    SPEAKER_WORDS,
    THIRD_PERSON_PRONOUNS,
    ZH_KIN,
    ZH_SOMEONE,
)
from flowmem.scoring.referents import people_named
from flowmem.scoring.relations import relations_named
from flowmem.scoring.tokens import query_terms
from flowmem.scoring.values import Value, find_values, may_number, same
from flowmem.timeexpr.clauses import CLAUSE_BREAK, FACT_BREAK, SEGMENT_BREAK
from flowmem.timeexpr.gate import TRIGGER_WORDS
from flowmem.timeexpr.numerals import ZH_NUMERAL_CHARS

ChangeKind = Literal["ended", "replaced", "corrected", "affirmed"]
Subject = Literal["speaker", "other", "unsaid"]  # whom a value is said of (subject_before)

# A condition that is over: what the clause said of it goes whole with it ("I've got a sprained ankle" leaves nothing
# of the sprain behind), not only its word.
_RECOVERED_EN = r"healed|cleared\s+up|recovered(?:\s+from)?|all\s+better|back\s+to\s+normal"
_RECOVERED_ZH = (
    r"(?<=[\u4e00-\u9fff]{2})(?<![做弄备修办想说订买装搞写谈吃睡排约讲量了])(?:已经|都|终于|全|基本)?"
    r"(?:好了|痊愈了?|康复了?|恢复了|正常了)"
)
RECOVERED = re.compile(rf"{_RECOVERED_EN}|{_RECOVERED_ZH}", re.I)

# "in two months", "for a year now", "for ages": how long something has not been
_FOR_A_WHILE = (
    r"(?:in|for)\s+(?:(?:over|about|nearly|almost|like|a|an|two|three|four|five|six|\d+)\s+)*"
    r"(?:days?|weeks?|months?|years?|ages)\b"
)
# A time gone by without it: "6 weeks without a cigarette", "haven't had a migraine in two months", "no migraines for a
# month now" (what ended is what follows the cue; a time said after it, not "haven't had lunch"). One of the endings,
# and read again by _ended_terms for what it ended.
_GONE_WITHOUT_EN = (
    r"(?:days?|weeks?|months?|years?)\s+(?:without|w/o)(?:\s+(?:a|an|any))?"
    r"|(?:haven['’]?t|hasn['’]?t|have\s+not|has\s+not)\s+(?P<gone_verb>had|[a-z]+ed)(?:\s+(?:a|an|any))?"
    rf"(?=\s+(?:[\w'-]+\s+){{0,3}}?{_FOR_A_WHILE})"
    rf"|no(?=\s+[a-z]+s\s+{_FOR_A_WHILE})"
)
_END_EN = (
    r"quit|quitting|sold|selling\s+off|dropp(?:ed|ing)|cancel+(?:ed|ing)|stopp(?:ed|ing)|gave\s+up|giving\s+up|given\s+up"
    # a plan off with no new day: "postponed indefinitely", "called off", "put on hold", "scrapped"
    r"|postponed\s+indefinitely|call(?:ed|ing)\s+off|put\s+on\s+hold|scrapp(?:ed|ing)"
    # dropping a provider or a habit in everyday words: "finally ditched BT", "dumped the gym", "therapy's wrapped up"
    r"|ditch(?:ed|ing)|dump(?:ed|ing)|wrapped\s+up|wound\s+up|finished\s+with|done\s+with"
    # an account or a membership closed: "closed my HSBC account" (not "closed the window")
    r"|clos(?:ed|ing)(?=\s+(?:my|our|the)\s+(?:[\w-]+\s+){0,2}?(?:account|membership|subscription|policy|card)\b)"
    # a charge passed to someone else: "handed the under-9s over to Gav"
    r"|hand(?:ed|ing)\s+(?:\S+\s+){1,3}?over(?=\s+to\b)|hand(?:ed|ing)\s+over\s+(?:\S+\s+){0,3}?\S+(?=\s+to\b)"
    # what was given back: "handed the Focus back", "gave the keys back" (what is given back, inside the cue)
    r"|(?:hand(?:ed|ing)|gave|giving)\s+(?:\S+\s+){1,3}?back\b"
    # given away, cut out, let lapse: "had to give Milo away", "cut out meat", "let my golf membership lapse"
    r"|(?:give|gave|giving|given)\s+(?:\S+\s+){1,3}?away\b|cut(?:ting)?\s+out(?=\s+\w)"
    r"|let\s+(?:my|our|the)\s+(?:\S+\s+){0,3}?(?:lapse|expire|run\s+out)\b"
    r"|broke\s+up(?:\s+with)?|split\s+up(?:\s+with)?|divorced|moved\s+out(?:\s+of)?|retired(?:\s+from)?"
    r"|got\s+rid\s+of|no\s+longer|no\s+more|(?:took|taken|take|came|coming|come|going|went|am|i'm|is|be)\s+"
    # "took me off the apixaban" ends it; "I'm off to go swimming", "off work today" leave for something
    r"(?:me\s+|him\s+|her\s+)?off(?!\s+(?:to|for|work|today|tonight|tomorrow|now)\b)|laid\s+off|lost\s+my"
    # "mum's off the warfarin now": 's is "is"
    r"|(?<=\w['’]s\s)off(?=\s+(?:the|her|his|my|their)\s)"
    # "Leah left teaching", "I left nursing": leaving an occupation, said by its -ing (not "left for work")
    r"|left(?=\s+[a-z]{3,}ing(?:\s*[.!?,;]|\s+(?:and|to|for|in|at|after|last|this|because|so|two|a)\b|\s*$))"
    # leaving a job, a company, a team (not "left my keys at home")
    r"|left(?=\s+(?:my|his|her|their|our|the)\s+(?:[\w'-]+\s+)?(?:job|position|role|post|company|firm|team|band|club|group"
    r"|choir|society|committee|league|squad|crew|union|gym)\b)"
    # a past habit or state, over now: "I used to work at Dell", "we used to live in Austin" (not "used to the noise",
    # "I'm used to it", "get used to")
    r"|(?<!\bam\s)(?<!\bis\s)(?<!\bare\s)(?<!'m\s)(?<!\bget\s)(?<!\bgot\s)(?<!\bgetting\s)(?<!\bbe\s)"
    r"(?<!\bwas\s)(?<!\bwere\s)(?<!\bbeen\s)used\s+to(?=\s+(?!it\b|this\b|that\b|the\b|a\b|an\b|my\b|our\b|your\b|his\b|her\b|their\b|being\b|having\b)"
    # "I used to hate running": an attitude that changed, not the running
    r"(?!(?:hate|love|like|dislike|enjoy|prefer|think|believe|feel|want|fear|wish|dread|worry)\b)[a-z]+\b)"
    r"|graduated(?:\s+from)?|qualified\s+as"
    # a habit given up, counted since: "2 months smoke free today", "a year alcohol-free" (what ended is its word)
    r"|(?:days?|weeks?|months?|years?)\s+(?:smoke|alcohol|booze|drink|vape|nicotine|caffeine)[-\s]free"
    rf"|{_GONE_WITHOUT_EN}"
    # a course or treatment come to its end: "finished her PhD", "finished my chemo" (not "finished my dinner")
    r"|finish(?:ed|ing)\s+(?=(?:(?:my|his|her|their|the)\s+)?(?:phd|degree|masters|master's|course|studies|training"
    r"|apprenticeship|residency|internship|chemo|chemotherapy|treatment|physio|rehab|therapy|counselling|counseling)\b)"
    # leaving a job by notice, and withdrawing from what one was doing: "handed my notice in at the bakery",
    # "resigned from the council", "pulled out of the Bath half", "withdrew from the course", "backed out of the deal"
    r"|resign(?:ed|ing)(?:\s+from)?|(?:hand(?:ed)?|gave|put)\s+(?:in\s+)?(?:my|his|her|their)\s+notice(?:\s+in)?"
    r"|pull(?:ed|ing)\s+out(?:\s+of)?|withdr[ae]w(?:n)?(?:\s+from)?|back(?:ed|ing)\s+out(?:\s+of)?"
    # a death said as a loss of someone named: "we lost Tofu on Saturday" (not "lost my keys": a name follows)
    r"|lost(?=\s+(?-i:[A-Z])[a-z]+\b)"
    # one thing swapped for another: "swapped the amitriptyline for propranolol" ends the amitriptyline
    r"|(?:swapped|traded|replaced)(?=\s+(?:\w+\s+){1,4}?(?:for|with)\b)"
    # a vehicle or a thing given up for good: "traded in the civic", "scrapped the van", "the Polo got written off"
    r"|trad(?:ed|ing)\s+in|scrapp(?:ed|ing)|written\s+off|wrote\s+(?:\S+\s+)?off"
    # discharged by whoever treated one: "physio's discharged me", "discharged from the clinic"
    r"|discharged(?=\s+(?:me|him|her|them|from)\b|\s*(?:[.!,;]|$))"
    # a thing stolen: "my bike got stolen", "the van was nicked" (what ended is its subject)
    r"|(?:got|was|been|were|get|gets)\s+(?:stolen|nicked|pinched)"
    # the last day somewhere, said of a place or a school left: "Ollie's last day at Little Acorns today" (not "the last
    # day of school", a term's end)
    r"|last\s+day\s+(?:at|in|with)(?=\s+(?:the\s+)?(?-i:[A-Z]))|last\s+day\s+at"
    # a school or a job finished at a named place ("finished at Greggs today", "she finished at Little Stars"), and a
    # named place or provider left ("left Vodafone", "left Dell last month"; not "left Sarah a note", "left Leeds at
    # 6am": a trip)
    r"|finished\s+at(?=\s+(?-i:[A-Z]))"
    r"|left(?=\s+(?>(?-i:[A-Z])[\w'’&-]*(?:\s+(?-i:[A-Z])[\w'’&-]*)*)(?!\s+(?:a|an|the|my|his|her|their|at|on|for"
    r"|around|with|to)\b))"
    # a death: what ended is who died ("Pepper died last night", "Nan passed away on the 2nd")
    r"|died|passed\s+away|passed\s+on|put\s+to\s+sleep|put\s+down(?=\s*(?:[.!,;]|$|\s+(?:today|yesterday|last|on)\b))"
    # a business or place gone (what ended is its subject): "Smile Studio closed down last month", "the gym went bust"
    r"|closed\s+down|shut\s+down|closed\s+for\s+good|went\s+(?:bust|under|out\s+of\s+business)"
    # …or "closed" alone at the end of its clause ("Riverside closed", "the pool's closed now")
    r"|(?<=\s)closed(?=\s*(?:[.!,;:)]|$|\s+(?:now|last|this|in\s+\w+|permanently)\b))"
    # a state that has cleared, said with nothing after it: "cold's gone finally", "the rash is gone" (not "gone to",
    # "gone back", "gone off": somewhere, or spoilt)
    r"|(?:(?<=['’]s\s)|(?<=\bis\s)|(?<=\bhas\s)|(?<=\bare\s))gone(?=\s*(?:[.!,;:)]|$|\s+(?:now|finally|completely"
    r"|at\s+last|for\s+good|thank|yay|woo|lol)\b))"
    # a condition over, said of what had it: "ankle's healed", "chest infection's cleared up", "recovered from the flu"
    rf"|{_RECOVERED_EN}"
)
# "don't work at Dell anymore", "not seeing Jonah anymore": the thing ended sits between the negation and "anymore"
# (n't is inside its word: no boundary before it).
# "not seeing Jonah anymore", "not drinking coffee these days": a doing denied of the present (a progressive before
# "these days" or "lately"; not "haven't seen Tom since Monday", which says when, not that it stopped)
# (a doing less, "not running as far these days", "not playing much", is no stop)
_DEGREE = r"(?!(?:as|so|that|too|very|much|many|often|far|well|enough|quite|really)\b)"
_NOT_NOW = (
    r"(?:[\w'-]+\s+){0,4}?any\s?more"
    rf"|(?:[\w'-]+\s+)?[\w'-]+ing\s+(?:{_DEGREE}[\w'-]+\s+){{0,3}}?(?:these\s+days|nowadays)"
)
_NOT_ANYMORE_EN = rf"(?:\bnot|n't)\s+(?:{_NOT_NOW})\b"
# not done of late, said of a thing ("haven't been taking the vitamin D", "hasn't been going to the gym"): stopped, as
# 最近没去了 — not a manner ("haven't been sleeping well": no thing named after it)
_NOT_LATELY_EN = (
    r"\b(?:haven't|hasn't|have\s+not|has\s+not)\s+been\s+(?P<lately>[a-z]+ing\s+(?:to\s+)?(?:the|my|his|her|their|our|any)"
    r"\s+(?:[\w'-]+\s+){0,2}?[\w'-]+)"
)
_NO_LONGER_ZH = r"不(?![行对好够会想要是知能敢得懂少多错见])[\u4e00-\u9fff][\u4e00-\u9fff]{0,3}?了"
# 不在新东方上了: no longer at a place, named at any length (the place is what ended)
_NOT_THERE_ZH = r"不在[\u4e00-\u9fffA-Za-z]{1,8}?了"
# 最近都没打球了, 好久没去健身房了: not done for a while now (没 + verb + 了 after a word of how long)
_NOT_LATELY_CUE = re.compile(r"没(?:有|再)?[\u4e00-\u9fff]{1,4}?了")
# …and after a count of days, weeks, months or years (三个月没抽烟了, 两周没犯了; not 今天没去了: a day)
_COUNTED_TIME = r"(?<=[个\d一二两三四五六七八九十几半][天周月年])"
_NOT_LATELY_ZH = rf"(?:(?<=最近)|(?<=好久)|(?<=很久)|(?<=一直)|(?<=都)|{_COUNTED_TIME}){_NOT_LATELY_CUE.pattern}"
_STOPPED_ZH = rf"{_NOT_THERE_ZH}|{_NO_LONGER_ZH}|{_NOT_LATELY_ZH}|戒(?![指备严])(?=[\u4e00-\u9fff])"
_END_ZH = (
    r"不再|没再|卖了|卖掉|辞职|离职|辞了|不干了|退了|停了|戒了|分手|离婚|搬走|搬出|取消|被优化|被裁|退休|去世|不用了"
    # given up, run out, not renewed, transferred away, broken up (跟小雅分了): 减肥放弃了, 年卡到期没续, 陈医生调走了
    r"|放弃|到期|没续|调走|(?<=[\u4e00-\u9fff])分了|送给|送人|毕业"
    # 从华为出来了: out of a place one was in (a job left)
    r"|(?<=从)[\u4e00-\u9fffA-Za-z]{1,8}?出来了"
    # a thing stolen: 电动车被偷了 (what ended is before it)
    r"|被偷了?|被盗了?"
    # a service switched off or unsubscribed: 网易云关了自动续费, 退订了
    r"|关了|关掉|退订"
    # a condition over, said after what had it (膝盖好了, 感冒好了, 血压现在正常了) — not a thing done (做好了, 订好了)
    rf"|{_RECOVERED_ZH}"
    # a place or business that is gone: 乐动健身跑路了, 那家店倒闭了
    r"|跑路了|倒闭了?|关门了|黄了"
    # what is no longer done, by the aspect of a changed state (不 + verb + 了: 酒已经不喝了, 健身房不去了) — not
    # what cannot or need not be (不行了, 不对了, 不会了, 不想了: a verb of ability, rightness or wish)
    rf"|{_STOPPED_ZH}"
    # a new value, said without a typed one (班主任换成了李老师): what had the old value is over
    r"|换成了?|改成了?"
)
_ENDING = re.compile(rf"\b(?:{_END_EN})\b|{_NOT_ANYMORE_EN}|{_NOT_LATELY_EN}|{_END_ZH}", re.I)
# "not seeing Jonah anymore": the thing ended sits between "not" and "anymore".
_NOT_ANYMORE = re.compile(
    r"(?:\bnot|n't)\s+(?P<what>(?:[\w'-]+\s+){0,4}?)any\s?more\b"
    rf"|(?:\bnot|n't)\s+(?P<doing>(?:[\w'-]+\s+)?[\w'-]+ing\s+(?:{_DEGREE}[\w'-]+\s+){{0,3}}?)(?:these\s+days|nowadays)\b",
    re.I,
)
_CHANGE = re.compile(
    r"\b(?:mov(?:e|ed|ing)|chang(?:e|ed|ing)|switch(?:ed|ing)?|reschedul(?:e|ed|ing)|push(?:ed)?|bump(?:ed)?"
    r"|shift(?:ed|ing)|now|new|instead|updat(?:e|ed)|rais(?:e|ed)|promot(?:ed|ion)|pr|record|transferr?(?:ed|ing)?"
    # what holds now, said as the present against before: "we shop at Lidl these days", "currently at Monzo"
    r"|these\s+days|nowadays|currently"
    # a value in force from a time on: "choir's on Thursdays from next term", "shifts start at 7 from Monday"
    r"|from\s+(?:next|this|tomorrow|today|now\s+on|(?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"|(?:jan|febr)uary|march|april|may|june|july|august|september|october|november|december)"
    r"|starting\s+(?:next|from|tomorrow)"
    # an amount that went up or down ("rent's going up again, £1,000 from June")
    r"|(?:go|goes|going|gone|went)\s+(?:back\s+)?(?:up|down)(?=\s+(?:again|by|from)\b|\s*[,.!;]|\s*$|\s+[$£€¥]?\d)"
    r"|as\s+of"
    # more or less of an amount: "upped the metformin to 1000mg", "cut my hours to 30"
    r"|upped|increas(?:e|ed|ing)|decreas(?:e|ed|ing)|lower(?:ed|ing)?|reduc(?:e|ed|ing)|doubl(?:e|ed)|halv(?:e|ed)"
    r"|adjust(?:ed)?|(?:up|down)grad(?:e|ed|ing)|port(?:ed|ing)|renew(?:ed|ing)"
    # a time moved: "postponed the housewarming to the 21st", "brought it forward to Monday"
    r"|postpon(?:e|ed|ing)|delay(?:ed|ing)?|brought\s+forward|put\s+off"
    # an amount that went up or down to another: "put the rent up to £1,050", "hours cut down to 30"
    r"|(?:up|down)\s+to(?=\s*[$£€¥]?\d)"
    # whatever the verb, a value it goes to ("drop to 75mg", "cut to 30 hours"), not the end of a range ("9 to 5")
    r"|(?<=[^\W\d]\s)to(?=\s+(?:about\s+|around\s+)?[$£€¥]?\d)"
    # a return to what was before: "choir's back on Thursdays", "back to 5 days a week"
    r"|back\s+(?:on|to|at)(?=\s+(?:[$£€¥]?\d|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b)))\b"
    r"|改|换|调|挪|推迟|延期|延后|顺延|提前|现在|如今|目前|新|变成|涨|升|降|减到|加到|纪录|刷新|转到"
    # whatever the verb, a number it goes to (瘦到60公斤, 跑到10公里), not a range's end (3点到5点, 周一到周五)
    rf"|(?<=[\u4e00-\u9fff])(?<![点号日月周年时分天])到(?=[\d{ZH_NUMERAL_CHARS}两])",
    re.I,
)
# Chinese words that say something said was wrong: a correction's words, and strong ones (_SAID_WRONG).
_ZH_WRONG = "更正|纠正|说错|搞错|记错|打错|写错|看错|弄错"
_CORRECTION = re.compile(
    # "sorry" apologises for a mistake; "sorry to hear that", "sorry about your dog" sympathise
    r"\b(?:actually|turns\s+out|after\s+all|sorry(?!\s+(?:to\s+hear|to\s+see|about|for|that|you|u)\b)|typo|oops|wait\s*,?\s*no|no\s*,?\s*wait|i\s+mean|correction|scratch\s+that|misread|my\s+bad|"
    r"fat\s+fingers?|got\s+(?:that|it)\s+wrong|i\s+was\s+wrong|misspoke|my\s+mistake)\b"
    # a value denied at the end of the message: "it's the 19th, not the 12th"
    rf"|\bnot\s+(?:the\s+|on\s+)?\w+[.!]*\s*$|{_ZH_WRONG}|不对|应该是|其实是"
    # a denial and what holds in its place: "No, not tree nuts, just peanuts", "not Monday, it's Tuesday"
    r"|^\W*no\s*,?\s*not\b|\bnot\s+(?:\w+\s+){0,2}\w+\s*,\s*(?:just|only|but|it's|its|it\s+is)\b"
    r"|(?:^|[，,。！!\s])是[^，。！？,.!?\s]{1,12}?[，,]?不是"  # 是实验小学不是中学: what it is, then what it is not
    r"|不是[^，。！？,.!?\s]{1,12}[，,]\s*(?:而)?是",
    re.I,
)
# A value said to be wrong: "not Monday", "instead of the 12th", 不是14号.
_NEGATED_BEFORE = re.compile(
    r"(?:\b(?:not|instead\s+of|rather\s+than)\s+(?:on\s+|at\s+)?(?:the\s+)?|不是|而不是)$", re.I
)


def negated_at(text: str, start: int) -> bool:
    """Whether what stands at ``start`` of ``text`` is said not to be ("not Monday", "instead of the 12th",
    不是14号)."""
    return _NEGATED_BEFORE.search(text[max(start - 14, 0) : start]) is not None


# A correction that names no value must say outright that something was wrong ("actually", "sorry" alone are
# everyday words): then what it names, said last, is what was wrong.
_SAID_WRONG = re.compile(
    rf"\b(?:correction|typo|misread|misspoke|scratch\s+that|i\s+was\s+wrong|got\s+(?:that|it)\s+wrong)\b|{_ZH_WRONG}",
    re.I,
)


def says_wrong(text: str) -> bool:
    """Whether ``text`` says outright that something said was wrong ("I got that wrong", "typo", 看错了), not only
    "actually" or "sorry", which everyday talk is full of."""
    return _SAID_WRONG.search(text) is not None


# Words that say when or how, not what: never the thing a change is about.
_NOT_SUBJECT = frozenset(
    " ".join(
        (
            "today yesterday tonight tomorrow week weeks month months year years ago last next this now just finally",
            "officially already again still anymore any more time same lol haha btw ok okay well really got get gets",
            "getting one two three four five six seven eight nine ten",
        )
    ).split()
)


@dataclass(frozen=True)
class Change:
    """One change a statement makes.

    Attributes:
        kind: ``ended`` (a state is over), ``replaced`` (a thing has a new value), ``corrected`` (a value just
            said was wrong) or ``affirmed`` (a doing denied before holds now: only the denial ends).
        about: The terms naming what changed (stemmed; Chinese characters and pairs as the lexical index has them).
        values: The new values (``replaced`` and ``corrected``).
        cue: The words that said it changed, for the reason shown in the history.
        beside: The Chinese characters of the clause that can name something: an older value with one of them
            right beside it (月薪一万二's 薪, 一点睡's 睡) is of the same thing — Chinese names the attribute next
            to its value, often in one character, too common alone to tell two statements are about one thing.
    """

    kind: ChangeKind
    about: frozenset[str]
    values: tuple[Value, ...]
    cue: str
    beside: frozenset[str] = frozenset()
    negated: tuple[Value, ...] = ()
    subjects: tuple[Subject, ...] = ()
    around: tuple[frozenset[str], ...] = ()  # per value: the terms of the words either side of it (see _around)
    frames: tuple[NameFrame | None, ...] = ()  # per value: where a name stands (name_kinds), None for other kinds
    # per value: the one-holder role a new name is said to fill; None: a new one of many (a friend), replacing no one
    roles: tuple[frozenset[str] | None, ...] = ()
    # Whose thing ended, when not the speaker's: an older statement must name them. The seller of what was sold (their
    # part in it goes: _seller), or the person whose working life ended (what they said of work goes: _retiree).
    seller: frozenset[str] = frozenset()
    keeps_holder: bool = False  # what goes is the ended thing (``about``), not what was said of the holder
    # An ability or a permission gained ("she can finally work", 终于能开车了): what ended is only an older statement
    # that denied it ("she can't work yet"), never one that merely speaks of the same doing.
    gained: bool = False
    # A state denied before, said to hold now ("I don't have a car" → "bought a car"): what ended is only an older
    # statement that negated it (:mod:`flowmem.scoring.affirmed`)
    affirmed: Affirmed | None = None
    # Values the statement says still hold beside the new ones ("doing sundays now, still saturdays too"): not replaced
    kept: frozenset[tuple[str, str]] = frozenset()
    # per value: the names said before it in its clause ("Bruno's daycare is Fridays": bruno): whose it is, by name
    people: tuple[frozenset[str], ...] = ()
    # per value: the relations said before it in its clause ("my brother lives in Milan": brother): whose it is, by kin
    kin: tuple[frozenset[str], ...] = ()
    # The names the statement says were left for the new one: after "from" or "instead of", or opening a clause of
    # their own ("switched my current account to Monzo, Barclays was useless"): a name an older statement holds there
    switched_from: frozenset[str] = frozenset()
    # per value: whether it is said of someone outside the speaker's home ("my mate's rent went up to £1000", 朋友家房租
    # 涨到4800了): theirs, never what an older statement that names no one said (the speaker's own rent)
    outsiders: tuple[bool, ...] = ()
    # Who stopped, when someone other than the speaker ("my husband quit smoking", 我老公戒烟了): an older statement
    # must name them (the speaker's own "I smoke" goes on)
    doer: frozenset[str] = frozenset()


def read_changes(text: str) -> list[Change]:
    """The changes ``text`` states, clause by clause (remembered for the last texts read: a search reads those of
    the memories it ranks, and the same memories come back query after query)."""
    return list(_read_changes(text))


@lru_cache(maxsize=4096)
def _read_changes(text: str) -> tuple[Change, ...]:
    correction = _CORRECTION.search(text)
    if (
        correction is None
        and not any(p.search(text) for p in (_ENDING, _CHANGE, _LEFT_PLACE, _BORN, _INSTEAD_OF, _GAINED))
        and not may_affirm(text)
        and not may_number(text)
    ):
        return ()  # no word of a change: most statements, read without splitting them into clauses
    changes: list[Change] = []
    every_value = find_values(text)
    if things := _switched_to(text, every_value):  # a name inside the phrase is part of it ("the Hillside … kibble")
        every_value = [v for v in every_value if not any(v.start < t.end and t.start < v.end for t in things)]
        every_value = sorted([*every_value, *things], key=lambda v: v.start)
    previous: tuple[int, int] | None = None
    affirmations: list[Change] = []
    for start, end in _spans(text, CLAUSE_BREAK, every_value):
        clause = text[start:end]
        previous, before = (start, end), previous
        if (left := _left_place(clause)) is not None:
            changes.append(left)
            continue
        if (dropped := _instead_of(clause, every_value, start)) is not None:
            changes.append(dropped)
        if (born := _BORN.search(clause)) is not None:  # "baby girl arrived", 宝宝出生了: no longer expecting
            changes.append(Change("ended", PREGNANCY_TERMS, (), born.group()))
        if (gained := _gained(clause)) is not None:
            changes.append(gained)
        elif (said := affirmed(clause)) is not None:  # read after the clause's other changes (listed last)
            affirmations.append(Change("affirmed", frozenset({said.verb}), (), said.cue, affirmed=said))
        values = tuple(v for v in every_value if start <= v.start < end) or _bare_amounts(clause, start)
        ending = _ENDING.search(clause)
        typed = [v for v in values if v.kind != "thing" or v.norm.isascii()]  # 换成了李老师: no typed value, an ending
        if ending is not None and typed and _NEW_VALUE_ZH.fullmatch(ending.group()):
            ending = None  # 改成了周四: a typed value, replaced below (and written into what held the old one)
        if ending is not None:
            about, chars = _ended_terms(clause, ending), _stopped_chars(clause, ending)
            if not about and (carried := _carried_subject(text, start, clause, ending)):
                about = carried  # 王阿姨年底要回安徽老家，不干了: the nanny's work ended
            if (about or chars) and _asserted(text, start, ending):
                retiree = _retiree(clause, ending, about)
                if retiree:  # "Omar retired": his working life ended, not Omar; 我弟毕业了: his studies, not him
                    life = STUDY_TERMS if _STUDY_LIFE.fullmatch(ending.group()) else WORK_TERMS
                    changes.append(Change("ended", life, (), ending.group(), seller=retiree, keeps_holder=True))
                else:
                    # a named thing ended is over whoever ended it ("Landlord's dumped Keystone"); a doing is the doer's
                    # and one of the speaker's ended by someone else is the speaker's ("my GP took me off the statin")
                    named = any(v.kind == "name" for v in find_values(clause[ending.end() :]))
                    mine = _SPEAKERS.search(clause, ending.start()) is not None
                    doer = frozenset() if named or mine else _doer(clause[: ending.start()], about)
                    changes.append(
                        Change("ended", about, (), ending.group(), chars, seller=_seller(clause, ending), doer=doer)
                    )
            # "The flat got sold, the new landlord is a letting agency called Hearth Homes": what replaced it, said
            # after the ending in the same clause, is read as a new value too
            after = [v for v in values if v.start - start >= ending.end() and not subject_terms(v.norm) & about]
            if not after or _CHANGE.search(clause, ending.end()) is None:
                continue
            values = tuple(after)
        cue = correction or _CHANGE.search(clause)
        if cue is None:
            # A label with another number is the same thing as it is now, with no word of change ("hardstuck gold
            # 2", then "hit gold 3 finally"; "I teach year 5", then "they've given me year 2"): the label names it.
            values = tuple(v for v in values if v.kind == "numbered" and v.norm.split(":")[0] not in _ONE_OF_A_SERIES)
            if not values or "?" in text[start : end + 1]:  # "is it year 5?" asks
                continue
            cue = _UNSAID_CUE
        cues = [m.span() for m in (*_CHANGE.finditer(clause), *_CORRECTION.finditer(clause))]
        about = _clause_about(clause, start, values)
        goes_on = not about and before is not None and _SENTENCE_END.search(text[before[1] : start]) is None
        if goes_on and before is not None:
            # "The choir's back on Thursdays, but at 7:15 now": a clause that names nothing goes on about the clause
            # before it in the sentence
            about = _clause_about(text[before[0] : before[1]], before[0], every_value)
        negated = tuple(v for v in values if negated_at(text, v.start))
        values = tuple(v for v in values if v not in negated)
        if values:
            chars = frozenset(_content_chars(_without(clause, [(v.start - start, v.end - start) for v in values])))
            # "actually yoga is back on Mondays": an everyday "actually" or "sorry" with a word of change is a change
            # (of whatever held before, however long ago), not a correction of the last thing said
            changed = _CHANGE.search(clause) if correction and not _SAID_WRONG.search(clause) else None
            kind: ChangeKind = "corrected" if correction and not changed else "replaced"
            cue = changed or cue
            subjects = tuple(subject_before(text, start, v) for v in values)
            around = tuple(_context(text, v, every_value) for v in values)
            frames = tuple(_frame_if_changed(text, start, cues, v, values) for v in values)
            roles = tuple(_new_role(text, v) for v in values)
            kept = frozenset((v.kind, v.norm) for v in values if _still(text, v))
            people = tuple(_named_before(text, start, v) for v in values)
            kin = tuple(relations_named(text[start : v.start]) for v in values)
            outsiders = tuple(_OUTSIDER.search(text[start : v.start]) is not None for v in values)
            switches = _SWITCHED.search(cue.group()) is not None
            switched = frozenset(v.norm for v in every_value if switches and v.kind == "name" and _left_for(text, v))
            change = Change(
                kind, about, values, cue.group(), chars, negated, subjects, around, frames, roles=roles, kept=kept,
                people=people, kin=kin, switched_from=switched, outsiders=outsiders,
            )  # fmt: skip
            if goes_on and changes and changes[-1].kind == kind and changes[-1].about == about:
                change = _joined(changes.pop(), change)  # one change of one thing, said in two clauses
            changes.append(change)
        elif (strong := _SAID_WRONG.search(clause)) is not None and len(about) >= 2:
            changes.append(Change("corrected", about, (), strong.group()))  # 更正一下 过敏的是腰果: no value
    if correction is not None and not changes and (denied := _denied(text)) is not None:
        changes.append(denied)  # "actually it's amoxicillin I react to, not penicillin": the penicillin was wrong
    return (*changes, *affirmations)


# Labels that number one of many at once — an item of a series, not a state of the thing ("fact number 2", "page 40",
# "bus 42", "gate 12", "episode 3"): another number is another item, not the same one changed.
_ONE_OF_A_SERIES = frozenset(
    " ".join(
        (
            "number no num nr part item step page episode chapter question option line round game match bus route",
            "gate platform exit table seat row lane track session lesson test exercise task slide verse flight train",
        )
    ).split()
)


def _no_word() -> re.Match[str]:
    match = re.compile("").match("")
    assert match is not None
    return match


_UNSAID_CUE = _no_word()  # a change its value says by itself: no word of change in the text


_FUNCTION_CHARS = frozenset(
    "了的是在就也都还又我你他她它们个和跟到上下点多少每周号月日年天时分半前后现今明昨这那有没不很太一"
)


# An amount said to go up or down: a bare number it names is the amount now (房东涨价了，3300; "rent went up, 1450").
_AMOUNT_MOVED = re.compile(
    r"涨|降价|上调|下调|\b(?:went|gone|going|goes|put\s+(?:it|the\s+\w+))\s+(?:up|down)\b|\b(?:rais|increas|decreas)\w*",
    re.I,
)
_BARE_NUMBER = re.compile(
    r"(?<![\d.,:/A-Za-z_])\d{3,}(?:,\d{3})*(?![\d.,:/%]|\s*(?:[a-z]+s\b|people|kids?|km|kg|mg|年|月|号|日|点|岁))", re.I
)


def _bare_amounts(clause: str, start: int) -> tuple[Value, ...]:
    """The bare numbers of a clause that says an amount went up or down (no typed value in it): the amounts now."""
    if not _AMOUNT_MOVED.search(clause):
        return ()
    found = _BARE_NUMBER.finditer(clause)
    return tuple(
        Value("amount", f"{float(m.group().replace(',', '')):g} ", start + m.start(), start + m.end()) for m in found
    )


def _joined(first: Change, then: Change) -> Change:
    """``first`` with the values ``then`` gives the same thing: one statement rewrites an older one once, with both."""
    return replace(
        first,
        values=first.values + then.values,
        beside=first.beside | then.beside,
        negated=first.negated + then.negated,
        subjects=first.subjects + then.subjects,
        around=first.around + then.around,
        frames=first.frames + then.frames,
        roles=first.roles + then.roles,
        kept=first.kept | then.kept,
        people=first.people + then.people,
        kin=first.kin + then.kin,
        switched_from=first.switched_from | then.switched_from,
        outsiders=first.outsiders + then.outsiders,
    )


_SENTENCE_END = re.compile(r"[.!?;。！？；\n]")
# Chinese words of when, never what a change is about (its terms are pairs of characters: 最近瘦到… has 近瘦)
_ZH_WHEN = re.compile(
    r"最近|现在|目前|如今|今天|昨天|前天|明天|后天|今年|去年|明年|[上下这本]个?(?:周|星期|礼拜|月)|刚刚?|已经|终于|马上"
)


def _clause_about(clause: str, start: int, values: Sequence[Value]) -> frozenset[str]:
    """The terms of what ``clause`` (at ``start`` of its text) is about: its words less its values, its change and
    correction words, whose it is ("Leo's swimming moves…": the swimming, not all said of Leo) and when ("…from next
    term")."""
    cues = [m.span() for m in (*_CHANGE.finditer(clause), *_CORRECTION.finditer(clause), *_ZH_WHEN.finditer(clause))]
    inside = [(v.start - start, v.end - start) for v in values if start <= v.start < start + len(clause)]
    about = subject_terms(_without(clause, inside + cues))
    about = (about - _owners(clause)) or about
    return (about - _when_terms(clause)) or about


def _content_chars(text: str) -> set[str]:
    """The Chinese characters of ``text`` that can name something."""
    return {c for c in text if "\u4e00" <= c <= "\u9fff" and c not in _FUNCTION_CHARS}


def _beside(text: str, value: Value) -> set[str]:
    """The Chinese characters next to ``value`` in ``text`` that can name something (月薪一万二 → 薪), past the adverbs
    and particles between (十一点就睡了 → 睡, as 一点睡)."""
    before = [c for c in text[max(value.start - 3, 0) : value.start] if c not in _FUNCTION_CHARS][-1:]
    after = [c for c in text[value.end : value.end + 3] if c not in _FUNCTION_CHARS][:1]
    return _content_chars("".join(before + after))


# Who a clause is about, read from its words before what it speaks of: someone else when a person is named there
# (a capitalised name, a person noun, a third-person pronoun: "Alice's parents … live", "my sister Cleo is", "coach
# moved Eli's"), else the speaker (I, we, my — or nothing: texting leaves the speaker out).
_OWN_GROUPS = frozenset({"team"})  # a group the speaker is one of, when it is theirs
_OTHER_PERSON = THIRD_PERSON_PRONOUNS | frozenset(PERSON_WORDS) | _OWN_GROUPS
_SELF_WORDS = SPEAKER_WORDS


def subject_before(text: str, start: int, value: Value) -> Subject:
    """Whom the value at ``value`` in ``text`` is said of, read from its clause (from ``start``) up to it: ``other``
    when a person is named there — a person noun or a third-person pronoun ("Alice's parents … live in", "coach
    moved Eli's practice to", 外婆住在), or a possessive name ("Eli's practice is") — the ``speaker`` when I, we, my
    come first (我), and ``unsaid`` when nothing there names anyone ("wait no, the 13th", "moved to Thursdays"):
    texting and corrections leave the subject out, and it is then whoever the older statement was about
    (:func:`same_subject`). A capitalised word alone proves nothing: "my train to Lyon is on 14th" is the speaker's
    train."""
    before = text[start : value.start]
    if _ZH_OTHER_PERSON.search(before):
        return "other"
    words = [match.group() for match in _WORD.finditer(before)]
    for index, word in enumerate(words):
        plain = re.sub(r"['’]s$", "", word)
        if plain.lower() in _OWN_GROUPS and index and words[index - 1].lower() in ("my", "our"):
            continue  # "Work has moved our team to the Slough office": the speaker's team is the speaker
        if plain.lower() in _OTHER_PERSON or (
            plain != word and plain[:1].isupper() and plain.lower() not in _SELF_WORDS
        ):
            doer = plain == word or _IS_DOING.match(" ".join(words[index + 1 : index + 2])) is not None
            if doer and (whose := _object_after(words[index + 1 :])) is not None:
                # "landlord put the rent up to £950", "the GP upped my dose", "Mr Osei's putting the rent up": the
                # doer, not the owner
                return whose
            return "other"
    if any(word.lower() in _SELF_WORDS for word in words) or re.search(r"[我咱]", before):
        return "speaker"
    return "unsaid"


def _object_after(words: list[str]) -> Subject | None:
    """Whose thing the value is when a person did something to it: the words after the person are a verb (not a
    copula) and then a thing with its determiner ("put the rent up to", "upped my dose to"): the speaker's (my, our),
    whoever the older statement spoke of (the), or None (no such object: "my sister moved to Leeds" is the sister's)."""
    if len(words) < 3 or words[0].lower() in _COPULAS:
        return None
    for at, word in enumerate(words[1:], 1):
        owner = word.lower()
        if owner in ("my", "our") and at + 1 < len(words):
            return "speaker"
        if owner in ("the", "this") and at + 1 < len(words):
            return "unsaid"
        if owner in ("his", "her", "their") or owner.endswith(("'s", "’s")):
            return None
    return None


_COPULAS = frozenset("is are was were 's be been has have had".split())  # noqa: SIM905


def _same_subject_at(old_text: str, start: int, old: Value, new: Subject) -> bool:
    return same_subject(subject_before(old_text, start, old), new)


def same_subject(old: Subject, new: Subject) -> bool:
    """Whether a value said of ``new`` can replace one said of ``old``: the same person, or a statement that names
    no one (it speaks of whoever the older one did)."""
    return old == new or "unsaid" in (old, new)


_ZH_OTHER_PERSON = re.compile(rf"[他她]|{ZH_KIN}")
# People outside the speaker's home: what is theirs (rent, car, job) is not the speaker's
_OUTSIDER = re.compile(
    r"\b(?:friends?|mates?|colleagues?|co-?workers?|neighbou?rs?|boss|cousins?|classmates?)\b|朋友|同事|邻居|闺蜜|同学|哥们"
    r"|表姐|表哥|表妹|表弟|老板|领导",
    re.I,
)


@lru_cache(maxsize=8192)  # a text is read again and again: against each candidate of a query, each older memory
def subject_terms(text: str) -> frozenset[str]:
    """The terms of ``text`` that can name what it is about: its search terms less the words of time and manner,
    stemmed so "nursing" meets "nurse" and "nights" "night"."""
    return frozenset(stem(t) for t in query_terms(text) if _names_something(t))


def first_subject_term(text: str) -> str | None:
    """The first of ``text``'s :func:`subject_terms`, in the order said: what a short statement is about ("the dinner
    with Sofia was so lovely": dinner)."""
    return next((stem(t) for t in query_terms(text) if _names_something(t)), None)


def _names_something(term: str) -> bool:
    """A term that can name a thing: not a word of time or manner, a number, a letter, or one Chinese character
    (者, 来, 前: too common alone to tell two statements are about one thing)."""
    return term not in _NOT_SUBJECT and not term.isdigit() and len(term) >= 2


def stem(term: str) -> str:
    """A crude English stem (plural, -ing, -ed, -e) — enough for the same word in another form to meet."""
    if not term.isascii() or len(term) <= 4:
        return term.rstrip("s") if term.isascii() and len(term) > 3 else term
    for suffix in ("ing", "ed", "es", "s", "e"):
        if term.endswith(suffix) and len(term) - len(suffix) >= 4:
            base = term[: -len(suffix)]
            # "running", "stopped", "shopping": the consonant doubled before the ending is one (run, stop, shop)
            return base[:-1] if suffix in ("ing", "ed") and base[-1] == base[-2] and base[-1] in "bdgmnpt" else base
    return term


def holds(text: str, about: frozenset[str]) -> bool:
    """Whether ``text`` speaks of what ``about`` names: shares one of its terms, an English word of the same family
    (:func:`kin_terms`: "therapy's wrapped up" speaks of "seeing a therapist"), or another word for the same thing
    (:data:`SAME_THING`: "my pay went up" speaks of "the salary goes to £36.5k")."""
    terms = subject_terms(text)
    if about & terms or any(kin_terms(a, t) for a in about for t in terms):
        return True
    return any(about & words and terms & words for words in SAME_THING)


# The words for one thing that a chat uses in turn (closed classes of the language): what one earns, what one pays to
# live somewhere.
SAME_THING: tuple[frozenset[str], ...] = (
    frozenset(
        ["salary", "pay", "paid", "wage", "earn", "earning", "incom", "工资", "薪水", "月薪", "年薪", "时薪", "薪资"]
    ),
    frozenset(["rent", "rental", "房租", "租金"]),
    # the two habits a chat gives up by name: smoking and drinking ("6 weeks without a cigarette" of "I smoke")
    frozenset(["smok", "cigarett", "cig", "ciggi", "fag", "抽烟", "吸烟", "烟"]),
    # (not "drink" itself: "I drink coffee every morning" is no drinking that "a week without alcohol" ends)
    frozenset(["alcohol", "booz", "wine", "beer", "喝酒", "酒"]),
)


KIN_PREFIX = 6


def kin_terms(a: str, b: str) -> bool:
    """Whether two English terms are of one word family: they begin with the same :data:`KIN_PREFIX` letters or more,
    and those cover three quarters of the shorter (therapy / therapist, physio / physiotherapy, medication / medical —
    not department / departure). Stemming joins the inflections of a word, not its derivations."""
    if not (a.isascii() and b.isascii()):
        return False
    if min(len(a), len(b)) < KIN_PREFIX:
        return False
    shared = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return shared >= KIN_PREFIX and shared >= 0.75 * min(len(a), len(b))


# Kinds of value that say by their form what they are of — a phone number is the phone, an e-mail address the e-mail
# — so a new one replaces an older one of the same person whatever words are around either ("new phone new number
# lol. 555-0187 now", "… is the one to use from now on"), and a job title said of someone is what they do ("as a
# junior designer" → "name badge came in: Senior Designer").
SELF_NAMED = frozenset({"phone", "email", "job", "numbered"})
# …and a phrase switched to, which is of the thing its head word names (_things_like found it by that word).
_NAMES_ITS_THING = SELF_NAMED | {"thing"}
_JUDGED = re.compile(
    r"(?:['’]s|\s+(?:was|were|is|got|had\s+got|has\s+been|had\s+been|became|kept|just\s+(?:was|got)))\b", re.I
)
_LEFT_FROM = re.compile(
    r"\b(?:from|instead\s+of|rather\s+than|ditched|dropped|left|leaving|cancell?ed|quit|dumped"
    # what a swap gives up comes first: "swapped Glasgow for Edinburgh", "replaced Sky with Virgin"
    r"|switched|swapped|traded|replaced|exchanged)\s+(?:the\s+|my\s+|our\s+)?$",
    re.I,
)


def _left_for(text: str, name: Value) -> bool:
    """Whether ``name`` is what a switch in ``text`` left: said after "from" or "instead of", or opening a clause
    with no word of change of its own ("…to Monzo, Barclays was useless"); not what is moved ("moved Leo to …")."""
    if _LEFT_FROM.search(text[max(0, name.start - 24) : name.start]):
        return True
    opening = max((m.end() for m in SEGMENT_BREAK.finditer(text, 0, name.start)), default=0)
    if text[opening : name.start].strip():
        return False
    end = next((m.start() for m in SEGMENT_BREAK.finditer(text, name.end)), len(text))
    # what it was like ("Barclays was useless", "Bupa got too expensive"), not what someone did ("Sarah recommended it")
    return _JUDGED.match(text, name.end) is not None and _CHANGE.search(text, name.end, end) is None


_SWITCHED = re.compile(
    r"switch|mov|chang|port|transfer|swap|now|these\s+days|nowadays|currently|换|改|转", re.I
)  # a change's cue that moves to another
# A dose's unit names what it is a dose of: "减到一片了" said of "优甲乐每天吃一片半", "upped to 100mg" of
# "sertraline 50mg".
_DOSE_UNITS = frozenset({"pill", "mg", "mcg", "iu", "units"})


def _is_dose(value: Value) -> bool:
    return value.kind == "amount" and _unit(value) in _DOSE_UNITS


def _unit(amount: Value) -> str:  # a change that names nothing ("down to 78kg now!") is of what its unit measures
    """An amount's unit as normalised ("1.5 pill": "pill"; a sum said bare, "1450 ": "")."""
    return amount.norm.partition(" ")[2]


def replaced_values(old_text: str, change: Change) -> list[tuple[Value, Value]]:
    """The values in ``old_text`` that ``change`` replaces, each with its replacement: a value of the same kind,
    with another content, in a clause of ``old_text`` that speaks of the same thing (a correction may leave out
    what it corrects: "ugh fat fingers. August 14"). Each old value is replaced once, by the first new one of its
    kind not used yet."""
    olds = find_values(old_text)
    olds += [thing for new in change.values if new.kind == "thing" for thing in _things_like(old_text, new)]
    held = {(v.kind, v.norm) for v in olds}
    if any(v.kind != "name" for v in change.values) and all(
        (v.kind, v.norm) in held for v in change.values if v.kind != "name"
    ):
        return []  # it says the new values already: it agrees (or is the change said before)
    pairs: list[tuple[Value, Value]] = []
    used: set[int] = set()
    held_new = {(v.kind, v.norm) for v in change.values}
    persons = {name.lower() for name in people_named(old_text)}  # the names the older text gives people
    spans = _spans(old_text, CLAUSE_BREAK, olds)
    # what a clause about the same thing says already ("Choir has moved to Wednesdays because the hall is rewired on
    # Thursdays" does not say choir is on Thursdays); a name wherever it is said (whose practice, whose school)
    said = {
        (v.kind, v.norm)
        for v in olds
        if v.kind == "name" or any(a <= v.start < b and _speaks_of(old_text[a:b], change) for a, b in spans)
    }
    for index, new in enumerate(change.values):
        if (new.kind, new.norm) in said:
            continue  # said already: no change
        role = change.roles[index] if change.roles else frozenset()
        if role is None and change.kind != "corrected":
            continue  # "a new friend, Sam": one more friend, instead of no one
        for start, end in spans:
            about_it = change.kind == "corrected" or holds(old_text[start:end], change.about)
            named = new.kind == "name" and change.kind != "corrected"  # a name is of the thing named right beside it
            # the words beside the new name, or — when it has none ("switched banks, I'm with Monzo now") — what the
            # change is about
            beside = (change.around[index] or change.about) if change.around else change.about
            fitting = [
                o
                for o in olds
                if start <= o.start < end
                and o.start not in used
                and (o.kind, o.norm) not in change.kept  # "doing sundays now, still saturdays too"
                and (_replaces(o, new) or _renumbered(o, new, change))
                and (
                    bool(_context(old_text, o, olds) & beside)
                    or _same_place(old_text, start, o, change, index)
                    # switched from the old name to the new, the old one named too ("switched my current account
                    # to Monzo, Barclays was useless"): whatever words stand beside either
                    or o.norm in change.switched_from
                    or bool(role and holds(old_text[start:end], role) and _only_name(o, olds, held_new, start, end))
                    if named
                    else about_it
                    or o.kind in _NAMES_ITS_THING
                    or _is_dose(o)
                    or (not change.about and _unit(o) not in ("", "money") and o.kind == "amount")
                    or _beside(old_text, o) & change.beside
                )
                and (not change.negated or any(same(o, n) for n in change.negated))
                # someone outside the home's value is not the speaker's, which an older statement naming no one says
                and not (
                    index < len(change.outsiders)
                    and change.outsiders[index]
                    and subject_before(old_text, start, o) == "unsaid"
                )
                and (
                    not change.subjects
                    or (
                        _same_subject_at(old_text, start, o, change.subjects[index])
                        and not _other_people(old_text, start, o, change, index)
                    )
                    or _same_person(old_text, start, o, change, index)
                )
            ]
            # a person's own name ("my brother Tom lives in Leeds": Tom) is not the value a new place replaces, when
            # another name of the clause can be
            if new.kind == "name" and any(o.norm not in persons for o in fitting):
                fitting = [o for o in fitting if o.norm not in persons]
            # of several in the clause, the one said nearest what changed ("choir on Mondays and pottery on Thursdays",
            # then "pottery's moved to Wednesdays": Thursdays), else the first
            old = min(fitting, key=lambda o: _distance(old_text, o, change.about), default=None)
            if old is not None:
                pairs.append((old, new))
                used.add(old.start)
                break
    return pairs


def _distance(text: str, value: Value, about: frozenset[str]) -> int:
    """How many characters lie between ``value`` and the nearest word of ``about`` in ``text`` (``len(text)`` when
    none is there: then the first value is taken, ``min`` keeping the order)."""
    lowered = text.lower()
    spots = [m.span() for term in about for m in re.finditer(re.escape(term), lowered)]
    return min((max(value.start - end, start - value.end, 0) for start, end in spots), default=len(text))


def _speaks_of(clause: str, change: Change) -> bool:
    return change.kind == "corrected" or not change.about or holds(clause, change.about)


def _frame_if_changed(
    text: str, start: int, cues: list[tuple[int, int]], value: Value, values: tuple[Value, ...]
) -> NameFrame | None:
    """The frame of a name the change word leads to — the first name after it ("new place is on Ashby Lane", "the new
    Quayside hub"), not one said of another name ("the new Wagamama on Baker Street": what is new is the restaurant,
    not the street) — else ``None`` (so the name is matched only by the words around it)."""
    if value.kind != "name":
        return None
    for _, cue_end in cues:
        if start + cue_end <= value.start and not any(
            o.kind == "name" and start + cue_end <= o.start < value.start for o in values
        ):
            return name_frame(text, value)
    return None


def _same_place(old_text: str, start: int, old: Value, change: Change, index: int) -> bool:
    """Whether the old name ``old`` (in the clause of ``old_text`` from ``start``) stands where the change's new name
    does: a street for a street, a company for a company, after the same preposition
    (:mod:`flowmem.scoring.name_kinds`), though no word around them is shared ("the flat on Dunmore rd" → "new place
    is on Ashby Lane"). The speaker's own places only: two people's schools or employers are two facts, and a clause
    tells which person only by name."""
    new = change.frames[index] if change.frames else None
    if new is None:
        return False
    if change.subjects and change.subjects[index] == "other":  # another person's: theirs by name in both
        return _same_person(old_text, start, old, change, index) and same_place(name_frame(old_text, old), new)
    return subject_before(old_text, start, old) != "other" and same_place(name_frame(old_text, old), new)


def _named_before(text: str, start: int, value: Value) -> frozenset[str]:
    """The names said in a clause of ``text`` (from ``start``) before ``value``: its capitalised words (the one that
    opens a sentence too when it is someone's: "Bruno's daycare is…", "Nana's been moved…"), less the words that are
    no name."""
    found = set()
    for match in _CAPITALISED.finditer(text, start, value.start):
        word = re.sub(r"['’]s$", "", match.group()).lower()
        opens = not text[: match.start()].rstrip() or text[: match.start()].rstrip()[-1] in ".!?\n"
        if (
            (opens and word == match.group().lower())
            or word in NOT_NAMES
            or word in _OTHER_PERSON
            or word in _SELF_WORDS
        ):
            continue  # "His INR checks…", "He's on warfarin": no name
        found.add(word)
    return frozenset(found)


_CAPITALISED = re.compile(r"\b[A-Z][a-z][\w-]*(?:['’]s)?\b")
_IS_DOING = re.compile(r"[a-z]+ing$|been$|got$")  # "Osei's putting…": 's is "is" or "has", not whose


def _other_people(old_text: str, start: int, old: Value, change: Change, index: int) -> bool:
    """Whether the change's value ``index`` and ``old`` are said of two other people, each by name ("Amy's swimming is
    on Mondays", "Ben's swimming moved to Tuesdays") or each by kin ("my sister lives in Rome", "my brother lives in
    Milan now")."""
    if not change.people or not change.subjects or change.subjects[index] != "other":
        return False
    theirs = _named_before(old_text, start, old)
    if change.people[index] and theirs and not change.people[index] & theirs:
        return True
    mine, their_kin = (
        change.kin[index] if index < len(change.kin) else frozenset(),
        relations_named(old_text[start : old.start]),
    )
    return bool(mine) and bool(their_kin) and not mine & their_kin


def _same_person(old_text: str, start: int, old: Value, change: Change, index: int) -> bool:
    """Whether the change's value ``index``, said of another person by name ("Bruno's daycare is Fridays now", "Dev's
    moving to Manchester"), and ``old`` (in the clause of the older text from ``start``) are said of the same one:
    their name before both ("our dog Bruno goes to daycare on Mondays", "my best friend Dev lives in Leeds")."""
    if not change.people or not change.subjects or change.subjects[index] != "other":
        return False
    return bool(change.people[index] & _named_before(old_text, start, old))


def _context(text: str, value: Value, values: list[Value]) -> frozenset[str]:
    """The terms of the words either side of ``value`` in ``text``, less those of the names there: what a name is
    the name of ("studio called Kiln & Co." → studio, call), not who else is named beside it."""
    names = {t for v in values if v.kind == "name" for t in subject_terms(text[v.start : v.end])}
    return subject_terms(_around(text, value)) - names


def _around(text: str, value: Value, words: int = 3) -> str:
    """The ``words`` words either side of ``value`` in ``text``, within its piece of the sentence: "my daughter is at
    Oakfield, her teacher is Mrs Patel" — "teacher" is beside Mrs Patel, not beside Oakfield."""
    before = _PIECE_BREAK.split(text[: value.start])[-1].split()[-words:]
    after = _PIECE_BREAK.split(text[value.end :])[0].split()[:words]
    return " ".join([*before, *after])


_PIECE_BREAK = re.compile(r"[,;.!?:，。！？；：]")


def rewrite(old_text: str, new_text: str, change: Change) -> str | None:
    """``old_text`` with the values ``change`` replaces written in (``None``: it holds none of them). A name is not
    written in — who or what was called that is replaced (see :func:`replaced_names`) — unless the new one follows a
    verb of naming: the same thing, renamed."""
    pairs = [
        (old, new)
        for old, new in replaced_values(old_text, change)
        if old.kind != "name" or _RENAMED.search(new_text[max(0, new.start - 16) : new.start])
    ]
    if not pairs:
        return None
    for old, new in sorted(pairs, key=lambda pair: pair[0].start, reverse=True):
        end = old.end + 1 if old.kind == "name" and _ABBREVIATION_DOT.match(old_text, old.end) else old.end
        written = new_text[new.start : new.end]
        before = _with_article(old_text[: old.start], written)  # "a paralegal" → "an associate"
        old_text = before + written + old_text[end:]
    return old_text


_ARTICLE = re.compile(r"(?<![\w'’])(?P<a>an?)(?P<gap>\s+)$", re.I)


def _with_article(before: str, word: str) -> str:
    """``before`` with its closing "a"/"an" as ``word``, said after it, takes."""
    match = _ARTICLE.search(before)
    if match is None:
        return before
    article = "an" if word[:1].lower() in "aeiou" else "a"
    if match["a"][0].isupper():
        article = article.capitalize()
    return before[: match.start()] + article + match["gap"]


_ABBREVIATION_DOT = re.compile(r"\.(?=\s+[a-z])")  # "Kiln & Co. out of a garage": the name's own dot, not a stop


# A name right after a verb of naming is the same thing under a new name ("the studio's now called Clayhouse",
# 改名叫): written in, unlike another person or place taking the old one's role.
_RENAMED = re.compile(
    r"\b(?:called|named|renamed(?:\s+to)?|rebranded(?:\s+as|\s+to)?|known\s+as)\s+$|改名(?:为|叫|成)?$", re.I
)


def replaced_names(old_text: str, change: Change) -> frozenset[str]:
    """The terms of the names in ``old_text`` that ``change`` replaces with other names ("my manager is Kevin" then
    "new manager is Arjun": kevin)."""
    return frozenset(
        t
        for old, _ in replaced_values(old_text, change)
        if old.kind == "name"
        for t in subject_terms(old_text[old.start : old.end])
    )


# A clause that opens with a preposition completes the one before it: it has no verb of its own.
_RELATIVE = re.compile(r"^\W*(?:that|which|who|where)\b", re.I)
_COMPLEMENT = re.compile(r"\s*(?:in|at|on|near|with|from|by|for|of|to|into|off)\b", re.I)
_LEADING = re.compile(r"^[\s,;:.!?，。；：、\u2014\u2013-]*(?:(?:and|but|so|then|that|which|who)\b)?[\s,]*", re.I)
# The join to a clause that went ("… violin and"), or a relative pronoun whose clause went ("My brother Tom, who")
_TRAILING = re.compile(r"[\s,]*\b(?:and|but)$|\s*,\s*(?:who|which|where|that)$", re.I)


def remainder(
    old_text: str, about: frozenset[str], *, whole: bool = False, breaks: re.Pattern[str] = FACT_BREAK
) -> str | None:
    """What else ``old_text`` said once what ``about`` names is gone (``None``: nothing of substance left).

    A clause whose subject is the ended thing ("Jonah and I have been dating…") goes whole; in another clause only
    the phrase naming it goes ("I work nights on the cardiac ward" → "I work on the cardiac ward", "I've got a 2012
    Civic and a Vespa" → "I've got a Vespa"): what else the clause said stays true. ``whole``: every clause that
    speaks of it goes (a name: what was said of the old manager is not said of the new one), and so do the
    fragments of fewer than two words of substance its breaks leave."""
    spans = _spans(old_text, breaks, find_values(old_text))
    kept: list[str] = []
    gone = False  # whether the clause before went
    for i, (start, end) in enumerate(spans):
        stop = spans[i + 1][0] if i + 1 < len(spans) else len(old_text)
        clause = old_text[start:end]
        if holds(clause, about) and _NAMING.match(clause) and kept:
            kept.pop()  # "I work in a cafe in Rathmines, it is called Bean There": the clause it names goes with it
            clause = ""
        elif holds(clause, about):
            # what the clause kept keeps its spacing before the break that follows ("…Tom, | who works at Aviva")
            spacing = clause[len(clause.rstrip()) :]
            clause = "" if whole else _without_phrase(clause, about)
            clause = clause and clause + spacing
        elif gone and (_RELATIVE.match(clause) or _RELATIVE.search(old_text[spans[i - 1][1] : start])):
            clause = ""  # what a relative clause said of the thing that went ("a book club | that meets on Thursdays")
        elif whole and (_substance(clause) < 2 or (gone and _COMPLEMENT.match(clause))):
            # a fragment the clause that went leaves behind ("me (and sam rent…)", "(…Headingley,) leeds"), or what
            # completes it ("I live in Paris, in a tiny flat near the canal")
            clause = ""
        gone = not clause
        if clause:
            kept.append(clause + old_text[end:stop])
    joint = "" if _CJK_CHAR.search(old_text) else " "  # Chinese puts no space after its punctuation
    text = _LEADING.sub("", joint.join(part.strip() for part in kept)).strip().rstrip(",，;；、 ")
    text = _TRAILING.sub("", text)
    return text if _substance(text) >= 2 and text != old_text.strip() else None


def _substance(text: str) -> int:
    """How many words of substance ``text`` says: its subject terms, a typed value counted as one ("rent is £900")."""
    return len(subject_terms(text)) + sum(v.kind != "name" for v in find_values(text))


# A clause that only gives the name of what the clause before it spoke of: "…, it's called Bean There", "…, 叫阿婆面".
_NAMING = re.compile(
    r"\s*(?:(?:and|which|that)\s+)?(?:(?:it|she|he|they|this|that)(?:['’]s|\s+is|\s+was|\s+are)\s+)?(?:called|named)\b"
    r"|\s*(?:它|那家|这家|店)?(?:叫|名叫|名字叫)",
    re.I,
)


_PERSONAL = frozenset(
    [
        "i",
        "i'm",
        "i've",
        "i'd",
        "we",
        "we're",
        "we've",
        "you",
        "you're",
        "he",
        "he's",
        "she",
        "she's",
        "they",
        "they're",
        "it",
        "it's",
        "his",  # "visited Nana at her house in Whitby": a possessive before the thing keeps it out of the subject
        "her",
        "their",
    ]
)
_DETERMINER = r"(?:(?:a|an|the|my|our|his|her|their|your|this|that)\s+)?(?:\d+\s+)?"
_WORD = re.compile(r"[\w'-]+")


def _said_before_it(clause: str, about: frozenset[str]) -> str:
    """A Chinese ``clause`` (its statements run on with commas) up to the comma before the first statement naming
    ``about``: 闺女今天上一年级了，班主任姓周，人挺和气的 → 闺女今天上一年级了. What follows that statement goes on
    about it (人挺和气的 is the old teacher), and a fragment kept from after it reads wrong alone — until a statement
    with a subject of its own (我, one of the speaker's people, 他/她): 我叫阿杰，在深圳做外卖骑手，老婆在老家带孩子
    less the delivery job keeps 我叫阿杰，老婆在老家带孩子."""
    kept = ""
    skipping = False  # in the statement naming ``about`` and what goes on about it
    for part in re.split(r"(?<=，)", clause):
        if holds(part, about):
            skipping = True
        elif skipping and _ZH_OWN_SUBJECT.match(part):
            skipping = False  # a statement with a subject of its own: 老婆在老家带孩子 after 在深圳做外卖骑手
        if not skipping:
            kept += part
    kept = kept.rstrip("，")
    return kept if len(subject_terms(kept)) >= 2 else ""


_ZH_OWN_SUBJECT = re.compile(rf"\s*(?:我(?!们)|{ZH_KIN}|[他她](?!们))")


_COPULAS = frozenset(["is", "are", "was", "were", "'s", "'re"])
_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")
_SUBJECTLESS_VERB = re.compile(r"[A-Za-z]{3,}ing|[A-Za-z]{3,}ed", re.I)  # a clause opening on its verb
_JOIN_AFTER = re.compile(r"\s*(?:,|\band\b|\bor\b|&)", re.I)
_JOIN_BEFORE = re.compile(rf"(?:,|\band|\bor|&)\s*{_DETERMINER}$", re.I)
_SUBJECT_PRONOUNS = _PERSONAL - {"his", "her", "their"} | {"they've"}  # the personal words that can be a subject
_ADVERBS = frozenset("still now also just really currently mostly usually always never even only".split())  # noqa: SIM905


# A determiner and its modifiers left without their noun: "a part-time at Warwick", "my new ." — the phrase named the
# thing itself, and the clause says nothing without it.
_DANGLING = re.compile(
    r"\b(?:a|an|the|my|our|his|her|their)\s+(?:(?:\w+-\w+|new|old|first|last|\w+(?:al|ed|ful|ive|ous|ic))\s+)?"
    r"(?:at|in|on|for|with|from|to|of|and|or)\b"
    r"|\b(?:a|an|the|my|our|his|her|their)\s*(?:[.,;!?]|$)"
    # a naming left without its name: "I work in a cafe in Rathmines, it is called" (the cafe was the one that ended)
    r"|\b(?:called|named)\s*(?:[.,;!?]|$)",
    re.I,
)


def _without_phrase(clause: str, about: frozenset[str]) -> str:
    """``clause`` without the words naming ``about`` (with their determiner and a joining "and"), or "" when they
    are in its subject (no personal pronoun before them: "my roommate Jules works nights…", "Jonah and I…" are about
    Jules, about Jonah) or nothing of substance is left."""
    if _CJK_CHAR.search(clause):  # Chinese (not any non-ASCII: "£1,050" is English)
        return _said_before_it(clause, about)
    words = list(_WORD.finditer(clause))
    hits = [w for w in words if stem(w.group().lower()) in about or w.group().lower() in about]
    if not hits:
        return ""
    before_hits = {w.group().lower() for w in words if w.start() < hits[0].start()}
    if words and words[0].start() < hits[0].start() and _SUBJECTLESS_VERB.fullmatch(words[0].group()):
        before_hits.add("i")  # texting leaves the "I" out: "Renting a 2-bed in Sale, through Keystone Lettings"
    listed = _JOIN_AFTER.match(clause, hits[-1].end()) or _JOIN_BEFORE.search(clause[: hits[0].start()])
    if not before_hits & _PERSONAL and not (before_hits & _COPULAS and listed):
        # in the subject; after a copula, one item of a list said of it goes ("my modules are X and Y" → "… are Y"),
        # never the whole of what is said of it ("Cleo is a nurse in the ICU": not "Cleo is in the ICU") — but from a
        # list of fragments only the fragment naming it ("29, software dev at Monzo, live in Hackney, vegan")
        return _other_fragments(clause, about)
    before = [w.group().lower() for w in words if w.end() <= hits[0].start() and w.group().lower() not in _ADVERBS]
    if before and before[-1] in _SUBJECT_PRONOUNS:  # what the subject does ("She teaches chemistry at …"): it all goes
        return ""
    text = clause
    for hit in reversed(hits):
        phrase = re.compile(
            rf"(?:\s*(?:,|\band\b|\bor\b|&)\s*)?(?:\b(?:at|in|on|with|for|from|of|through|via)\s+)?\b{_DETERMINER}"
            # the rest of a name it begins ("Keystone Lettings")
            rf"{re.escape(hit.group())}(?:\s+(?-i:[A-Z])[\w'’&-]*)*(?:\s*(?:\band|\bor|&)\b)?"
            # and what a relative clause says of it ("a book club that meets on Thursdays")
            r"(?:\s+(?:that|which|who|where)\b[^,;.!?]*)?",
            re.I,
        )
        text = phrase.sub(" ", text, count=1)
    text = re.sub(r"\s+(?=[,.;:!?])", "", " ".join(text.split()))  # no space left before punctuation ("2016 Ford ,")
    if _OBJECTLESS.search(text) and not _OBJECTLESS.search(clause):
        return ""  # "I take vitamin D every morning" less the vitamin D: its verb left with no object ("I take every…")
    if len(_DANGLING.findall(text)) > len(_DANGLING.findall(clause)):
        # "I'm doing a part-time MBA at Warwick" less the MBA: its modifiers left with nothing ("a 2-bed in Sale" was
        # said so before anything went)
        return ""
    return text if len(subject_terms(text)) >= 2 else ""


# A verb after its subject with nothing done to it: a time follows at once, or nothing ("I take every morning")
_OBJECTLESS = re.compile(
    r"\b(?:i|we|you|they|he|she)\s+(?:(?:still|also|just|usually|always|now)\s+)?(?!(?:am|are|is|was|were|have|had|do|go|went"
    r"|work|live|run|swim|walk|cycle|drive|sleep|train|commute)\b)[a-z]+\s*(?=(?:every|each|daily|twice|once)\b|[,.;!?]|$)",
    re.I,
)
_CLAUSE_OPENING = re.compile(r"\s*(?:i|we|he|she|they|it|my|our|his|her|their|you|there)\b", re.I)


def _other_fragments(clause: str, about: frozenset[str]) -> str:
    """``clause`` less the comma-separated fragment naming ``about`` and what completes it ("…, in a tiny flat"), when
    it is a list of three fragments or more (texting's introductions: "29, software dev at Monzo, live in Hackney with
    2 flatmates, vegan"); "" for any other clause."""
    parts = clause.split(",")
    if len(parts) < 3 or any(_CLAUSE_OPENING.match(part) for part in parts):
        return ""  # clauses with subjects of their own, not a list ("Third coffee, I drink four cups a day, it's…")
    kept: list[str] = []
    gone = False
    for part in parts:
        if holds(part, about) or (gone and _COMPLEMENT.match(part)):
            gone = True
            continue
        gone = False
        kept.append(part.strip())
    text = ", ".join(p for p in kept if p)
    return text if len(subject_terms(text)) >= 2 else ""


def _renumbered(old: Value, new: Value, change: Change) -> bool:
    """A correction of a label and its number may correct the label too ("hit gold 3", then "wait no i misread the
    screen, its plat 1")."""
    return change.kind == "corrected" and old.kind == new.kind == "numbered" and old.norm != new.norm


def _replaces(old: Value, new: Value) -> bool:
    """Whether ``new`` is another content for what ``old`` held: the same kind, not the same content; a day of
    the month without its month ("the 13th") compares with any day; an amount with one of the same unit, or a sum said
    without its currency ("1450 a month", "7.99") with one said with it."""
    if old.kind != new.kind or old.norm == new.norm:
        return False
    if old.kind == "amount":
        units = {_unit(old), _unit(new)}
        return len(units) == 1 or units == {"", "money"}
    if old.kind == "numbered":  # the same label with another number ("ward 7B" → "ward 4A"), not another label
        label = old.norm.split(":")[0]  # …nor another item of a series ("flight 409 was delayed" after "flight 221")
        return label == new.norm.split(":")[0] and label not in _ONE_OF_A_SERIES
    return True


# What makes an ending no ending: said of "you" (advice, a question), denied, wished, planned or supposed ("don't
# quit, keep going", "I didn't quit in the end", "if I quit", "thinking about quitting", 我不会辞职, 别卖): nothing
# ended yet.
_UNREAL_EN = re.compile(
    r"\b(?:you|you've|you're|don't|dont|do\s+not|doesn't|didn't|did\s+not|never|not|won't|wouldn't|can't|cannot|"
    r"couldn't|shouldn't|should|would|could|might|may|must|wanna|want\s+to|wants\s+to|going\s+to|gonna|"
    r"about\s+to|plan(?:ning)?\s+to|thinking\s+(?:of|about)|considering|afraid\s+to|hope\s+to)\s+(?:[\w']+\s+){0,2}$",
    re.I,
)
_SUPPOSED = re.compile(r"\b(?:if|unless|whether|in\s+case)\b", re.I)  # anywhere before it in the sentence
_UNREAL_ZH = re.compile(r"(?:不|没|别|不要|不会|不想|如果|要是|想|打算|准备|可能|会|万一)[^，。！？；,.!?;]{0,3}$")


def _asserted(text: str, start: int, ending: re.Match[str]) -> bool:
    """Whether the ending ``ending`` (in the clause of ``text`` from ``start``) is told as having happened: no
    negation, wish, plan, condition or second person before it, and not asked."""
    at = start + ending.start()
    before = text[start:at]
    sentence = text[max((text.rfind(c, 0, at) for c in ".!?。！？\n"), default=-1) + 1 : at]
    if _UNREAL_EN.search(before) or _UNREAL_ZH.search(before) or _SUPPOSED.search(sentence):
        return False
    stop = re.search(r"[.!?。！？\n]", text[start + ending.end() :])
    return stop is None or stop.group() not in "?？"


_NOTICE = re.compile(r"(?:hand|gave|put|resign)", re.I)
_HANDED_OVER = re.compile(
    r"hand(?:ed|ing)\s+(?P<what>.+?)\s+(?:over|back)|hand(?:ed|ing)\s+over\s+(?P<what2>.+?)"
    r"|(?:gave|giving)\s+(?P<what3>.+?)\s+back"  # not "gave up": what is given up follows it (see _END_EN)
    r"|(?:give|gave|giving|given)\s+(?P<what4>.+?)\s+away|let\s+(?P<what5>.+?)\s+(?:lapse|expire|run\s+out)",
    re.I,
)
# A sum said after a verb of giving up (卖了两万, 卖了8000块), not a name that opens with a numeral (二甲双胍).
_PRICE = re.compile(rf"[\d{ZH_NUMERAL_CHARS}]+(?:$|[万千百十块元多来])")
# Chinese endings that take what they end as an object after them when one is said (停了氨氯地平, 放弃减肥)
_ZH_TRANSITIVE = re.compile(r"卖了|卖掉|停了|取消|放弃|戒了|退了|关了|关掉|退订")


def _ended_terms(clause: str, ending: re.Match[str]) -> frozenset[str]:
    """What the ending in ``clause`` ends: its object (the words after the verb, or between "not" and
    "anymore"), else its subject (the words before: "Kevin 离职了", 飞度卖了, "Mum retired")."""
    if (free := _FREE_OF.search(ending.group())) is not None:  # "2 months smoke free": smoking
        return frozenset({stem(free.group("what").lower())})
    if (gone := _GONE_WITHOUT.match(clause, ending.start())) is not None and gone.end() == ending.end():
        # "haven't had a migraine in two months since…": what is named before the time gone by; "haven't smoked in
        # six weeks": the doing itself
        named = _first_terms(re.split(_FOR_A_WHILE, clause[ending.end() :], maxsplit=1, flags=re.I)[0])
        verb = gone["gone_verb"]
        return named or (subject_terms(verb) if verb and verb.lower() != "had" else frozenset())
    if (there := _NOT_THERE_PLACE.fullmatch(ending.group())) is not None:  # 不在新东方干了: 新东方
        return _first_terms(there.group("place"))
    lately = re.match(_NOT_LATELY_EN, ending.group(), re.I)
    if lately is not None:  # "haven't been taking the vitamin D": the thing not done
        return _first_terms(lately.group("lately").split(None, 1)[1]) - _MENTAL
    between = _NOT_ANYMORE.search(clause)
    if between is not None and (what := (between.group("what") or between.group("doing") or "")).strip():
        if what.split()[0].lower() in _CALLS and (who := _caller(clause[: between.start()])):
            return who  # "the cleaner doesn't come anymore": the cleaner's visits are over
        return _first_terms(what) - _MENTAL
    rest = clause[ending.end() :]
    if ending.group().isascii():  # "I used to work at Dell, now I'm at Lumen": what ended stops at the comma
        rest = re.split(r"[,;:\u2014\u2013]", rest)[0]
    if ending.group().lower().startswith("used"):
        # "I used to work at Dell" ends what names Dell; "I used to compete in dance competitions" (a memory told of
        # a past habit, the dancing still current) ends nothing: a past habit ends only a named thing
        return frozenset(t for v in find_values(rest) if v.kind == "name" for t in subject_terms(v.norm))
    if ending.group().lower() == "lost":  # "we lost Tofu on Saturday. Miso keeps looking…": Tofu only
        return subject_terms(rest.split()[0]) if rest.split() else frozenset()
    if _HANDED_OVER.fullmatch(ending.group()):  # "handed the under-9s over to Gav": what was handed, inside the cue
        handed = _HANDED_OVER.fullmatch(ending.group())
        handed_what = next(w for w in handed.groups() if w)  # type: ignore[union-attr]
        return _first_terms(re.sub(r"^.*['’]s\s+", "", handed_what))  # "Milo's old toys": the toys, not Milo
    if not ending.group().isascii() and _ZH_TRANSITIVE.fullmatch(ending.group()):
        # 停了氨氯地平, 卖掉了车: a verb that takes an object, and one follows; 飞度卖了: none, what ended is before
        obj = re.match(r"[\u4e00-\u9fffA-Za-z0-9]{2,}", rest)
        if obj is not None and not _PRICE.match(obj.group()):  # 卖了两万: a price; 停了二甲双胍: a drug
            return _first_terms(obj.group())
    if _NOTICE.match(ending.group()):  # "handed my notice in at the bakery": the place left, after at/from
        return _first_terms(re.sub(r"^\s*(?:at|from)\b", "", rest))
    if _BECAME.fullmatch(ending.group()):  # "my partner qualified as a paramedic": the one who did (see _retiree)
        return _first_terms(_without_adverbs(clause[: ending.start()]), last=True)
    if ending.group().lower().startswith("last"):  # "my last day at Dell is March 19": the place, not the date
        rest = _LAST_DAY_PLACE_END.split(rest, maxsplit=1)[0]
    if _STOLEN.search(ending.group()):  # "my Brompton got stolen outside Tesco": what was stolen, not where
        rest = ""
    if ending.group().lower() in ("swapped", "traded", "replaced"):
        rest = re.split(r"\b(?:for|with)\b", rest, maxsplit=1)[0]  # what was given up, not what came for it
    if ending.group().lower().startswith("moved out"):  # "moved out of halls into a house on Cathays Terrace": halls
        rest = re.split(r"\b(?:into|to|and)\b", rest, maxsplit=1)[0]
    if ending.group().lower() == "left" and re.match(r"\s+[a-z]{3,}ing\b", rest):
        # "left banking to start a bakery": the occupation only, and the one who does it ("left teaching" ends "my
        # sister is a teacher")
        doing = _first_terms_in_order(rest)[:1]
        return frozenset([*doing, *(f"{term}er" for term in doing)])
    said_before = clause[: ending.start()]
    if not ending.group().isascii():  # a Chinese clause runs on past its commas: what ended is after the last one
        said_before = re.split(r"[，、]", said_before)[-1]
    before = _first_terms(_without_adverbs(said_before), last=True)
    if _stops_doing(ending.group()):
        if ending.group() == "戒":
            given_up = re.match(r"[\u4e00-\u9fff]+", _SINCE_ZH.sub("", rest))  # 戒奶茶第21天: what is given up follows
            return _first_terms(given_up.group()) if given_up else frozenset()
        said = _plain_stop(ending.group())[
            2:-1
        ]  # 不吃白米饭了: what is no longer done is inside it; 酒不喝了: before it
        return _first_terms(said) if said else before
    before = before or frozenset(t for t in _first_terms(said_before, last=True) if not _ZH_ADVERBS.search(t))
    after = frozenset() if _NO_OBJECT.match(rest) else _first_terms(rest)
    if not ending.group().isascii():  # Chinese puts what ended first: 飞度卖了, Kevin 离职了
        return before or after
    return after or before


_NOT_THERE_PLACE = re.compile(r"不在(?P<place>[\u4e00-\u9fffA-Za-z]{1,8}?)(?:干|上班|工作|做|上|待|住|读)?了")
_FREE_OF = re.compile(r"(?P<what>\w+)[-\s]free$", re.I)
_GONE_WITHOUT = re.compile(_GONE_WITHOUT_EN, re.I)
# Coming round, said of whoever comes: "the cleaner doesn't come anymore", "the milkman doesn't deliver any more"
_CALLS = frozenset({"come", "comes", "visit", "visits", "deliver", "delivers", "call", "calls", "pop", "drop"})
_AUX_END = re.compile(r"\s*\b(?:does|do|did|will|would|can|could)\s*$", re.I)
_PRONOUN = re.compile(r"\b(?:i|we|you|he|she|they|it|this|that)\b", re.I)


def _caller(before: str) -> frozenset[str]:
    """The terms of a noun subject said before "doesn't come …" ("the cleaner"), none for a pronoun or none said."""
    subject = _AUX_END.sub("", re.split(r"[,;:.!?]", before)[-1])
    if _PRONOUN.search(subject):
        return frozenset()
    return _first_terms(subject, last=True)


_STOLEN = re.compile(r"stolen|nicked|pinched|被偷|被盗", re.I)
_LAST_DAY_PLACE_END = re.compile(
    r"\b(?:is|was|will|be|on|today|tomorrow|tonight|yesterday|this|next|before|after)\b|['’]s\b", re.I
)


# Giving a thing away: what ends is the giver's having it, not the thing ("王阿姨把房子卖了": the flat the speaker rents
# from her is still there, she is no longer its landlord).
_TRANSFER = re.compile(r"sold|selling\s+off|卖了|卖掉", re.I)
_ZH_SELLER = re.compile(r"(?P<who>[^，。！？；,.!?;\s]{1,8}?)(?:已经|早就)?把[^，。！？；,.!?;]{1,12}$")
_EN_SELLER = re.compile(
    r"(?P<who>\b(?-i:[A-Z][\w'-]+)(?:\s+(?-i:[A-Z][\w'-]+))?|\b(?:my|our|the|his|her|their)\s+[a-z]+(?:-[a-z]+)*)"
    r"\s+(?:has\s+|just\s+)*$"
)


# A thing switched to, named by a phrase and not a typed value ("Pepper should switch to the Hillside kidney care
# kibble", "we changed to the night shift", "moved him onto the puppy food"): the phrase after "to", up to a word that
# ends it. An older statement holding a phrase with the same last word (its head: kibble, shift) and other words
# before it held the old one ("Pepper's on the salmon kibble") — a change of what kind of the same thing, written in
# like a value.
_SWITCH = re.compile(
    r"\b(?:switch(?:ed|ing)?|swap(?:ped|ping)?|chang(?:e|ed|ing)|mov(?:e|ed|ing)|put)\s+(?:[\w'’]+\s+)?(?:over\s+)?"
    r"(?:on)?to\s+(?:the|a|an|my|our|his|her|their)\s+(?P<np>(?:[\w-]+\s+){0,3}[\w-]+)",
    re.I,
)
_PHRASE_END = frozenset(
    "from for with at in on by because and but or so to of then which that who now instead".split()  # noqa: SIM905
)


# The same in Chinese, where a compound names its kind by its last characters (实验幼儿园, 阳光幼儿园: 幼儿园; 刘医生,
# 陈医生: 医生): what a move or change verb leads to (转到了实验幼儿园, 换了个刘医生) is a new one of the kind its head
# names, and an older compound with the same head and another modifier held the old one. Three characters at least:
# a head and what sets it apart (调到杭州 names a place, not a kind).
_ZH_SWITCH = re.compile(
    r"(?:转|调|换|搬|改)(?:到|成|去)?了?(?:个|台|家|辆|位|只|所)?"
    r"(?P<np>(?![到成去了])[^了的，。！？；,.!?;\s\x00-\x2f]{3,8})(?=[了的，。！？；,.!?;\s]|$)"
)
ZH_HEAD = 2  # the characters of a Chinese compound's head


def _switched_to(text: str, values: list[Value]) -> list[Value]:
    """The things ``text`` says something switched to, by a phrase (see _SWITCH, _ZH_SWITCH), where no typed value but
    a name stands."""
    found = [
        Value("thing", m.group("np").lower(), m.start("np"), m.end("np"))
        for m in _ZH_SWITCH.finditer(text)
        if not any(v.start < m.end("np") and m.start("np") < v.end and v.kind != "name" for v in values)
    ]
    for match in _SWITCH.finditer(text):
        words = list(re.finditer(r"[\w-]+", match.group("np")))
        kept = []
        for word in words:
            if word.group().lower() in _PHRASE_END or word.group().lower() in _NOT_SUBJECT:
                break
            kept.append(word)
        if not kept or len(kept[-1].group()) < 3:
            continue
        start, end = match.start("np") + kept[0].start(), match.start("np") + kept[-1].end()
        if not any(v.start < end and start < v.end and v.kind != "name" for v in values):
            found.append(Value("thing", " ".join(w.group().lower() for w in kept), start, end))
    return found


def _things_like(old_text: str, new: Value) -> list[Value]:
    """The phrases of ``old_text`` with ``new``'s head (its last word; in Chinese its last :data:`ZH_HEAD` characters,
    after one to four others) after a determiner: what held the old kind."""
    if not new.norm.isascii():
        measured = _ZH_MEASURED.match(new.norm)
        counted = _zh_measured_like(old_text, measured["m"], counted=measured.start("m") > 0) if measured else []
        return counted or _zh_things_like(old_text, new.norm[-ZH_HEAD:])
    head = re.escape(new.norm.split()[-1])
    pattern = rf"\b(?:the|a|an|my|our|his|her|their)\s+(?P<np>(?:[\w-]+\s+){{0,3}}?{head})\b"
    return [
        Value("thing", " ".join(m.group("np").lower().split()), m.start("np"), m.end("np"))
        for m in re.finditer(pattern, old_text, re.I)
    ]


# Chinese measure words that say the kind of thing counted (辆: a vehicle, 只/条: an animal, 套/间: a flat or a
# room, 家/所: a business or a school, 部/台: a phone or a machine, 份: a job): a thing said with one after a switch
# (换了辆理想) is of the kind its measure word says, and replaces the thing said with the same one before
# (开的是一辆大众). Not 个: it says no kind.
_ZH_MEASURED = re.compile(
    r"^(?:[一两]|这|那)?(?P<m>[辆台部只条匹套间家所份本双件架艘])(?P<thing>[\u4e00-\u9fffA-Za-z0-9]{1,8})$"
)


def _zh_measured_like(old_text: str, measure: str, counted: bool) -> list[Value]:
    """The things of ``old_text`` counted with ``measure`` (一辆大众 for 辆), with their count word when the new thing
    has one (``counted``), so that one written over the other reads as said (一辆理想, not 一一辆理想)."""
    found = []
    # with its count word in the older text: a measure word alone is often another word (我家 is "my home")
    for match in re.finditer(rf"(?P<count>[一两这那]){measure}(?P<thing>[\u4e00-\u9fffA-Za-z0-9]{{1,8}})", old_text):
        thing = re.split(r"[了的呢吧啊呀里上中，。！？；,.!?;\s]", match.group("thing"))[0]
        if thing:
            start = match.start() if counted else match.start("thing") - len(measure)
            found.append(Value("thing", f"{measure}{thing}".lower(), start, match.start("thing") + len(thing)))
    return found


def _zh_things_like(old_text: str, head: str) -> list[Value]:
    found = []
    for match in re.finditer(rf"[\u4e00-\u9fff]{{1,4}}?{re.escape(head)}", old_text):
        start = match.start()
        while start < match.end() - ZH_HEAD and old_text[start] in _FUNCTION_CHARS:
            start += 1  # 在阳光幼儿园: the compound, not the 在 before it
        if start < match.end() - ZH_HEAD:
            found.append(Value("thing", old_text[start : match.end()].lower(), start, match.end()))
    return found


# Roles one person holds for someone at a time — a new one named is instead of the old ("I'm seeing a new physio,
# Aisha", "our new landlord is Hearth Homes", 新房东姓赵): a closed class of services and charges, not friends or
# colleagues (a new friend is one more).
EXCLUSIVE_ROLES = frozenset(
    " ".join(
        (
            "physio physiotherapist dentist doctor gp therapist counsellor counselor psychiatrist psychologist teacher",
            "tutor coach trainer instructor landlord landlady manager boss supervisor nanny childminder babysitter",
            "cleaner accountant lawyer solicitor vet hairdresser barber consultant midwife surgeon optician",
            "chiropractor osteopath dietitian nutritionist mentor advisor adviser agent",
        )
    ).split()
)
_NEW_ROLE = re.compile(
    r"\bnew\s+(?P<role>[a-z]+)(?:\s+(?:is|was|will\s+be))?(?:\s+(?:called|named))?[\s,:]*(?:is\s+)?$", re.I
)


# Relations a person has many of at once: a new one named is one more, never instead of another ("made a new friend,
# Sam" leaves "my friend Jess lives in Leeds").
_MANY_AT_ONCE = frozenset(
    "friend colleague coworker co-worker neighbour neighbor classmate mate buddy pal teammate acquaintance".split()  # noqa: SIM905
)


def _only_name(old: Value, olds: list[Value], said_again: set[tuple[str, str]], start: int, end: int) -> bool:
    """Whether ``old`` is the one name of its clause (``start``–``end``) that the change does not say again: a role
    named far from its holder ("My physio sessions are Tuesdays at 5 with Dan") is theirs only when no one else is
    named there."""
    others = [v for v in olds if v.kind == "name" and start <= v.start < end and (v.kind, v.norm) not in said_again]
    return others == [old]


def _new_role(text: str, value: Value) -> frozenset[str] | None:
    """The one-holder role (EXCLUSIVE_ROLES) a name is said to be the new one of ("a new physio, Aisha": physio);
    None for a new one of a relation one has many of (_MANY_AT_ONCE: it replaces no one); empty otherwise."""
    if value.kind != "name":
        return frozenset()
    found = _NEW_ROLE.search(text[max(0, value.start - 40) : value.start])
    role = found.group("role").lower() if found else ""
    if role in _MANY_AT_ONCE:
        return None
    return subject_terms(role) if role in EXCLUSIVE_ROLES else frozenset()


# Out of a place one is kept in ("Grandad's home from hospital", "she's out of rehab", 爷爷出院了): the stay there is
# over. A closed class of such places; what ends is what was said of the stay (the pieces naming the place, of the
# person named before the words: a nurse's job at the hospital is no stay). The stay's place is named after the cue
# in English, inside the word in Chinese (出院 ends 住院).
_LEFT_PLACE = re.compile(
    r"\b(?:home|back|out|discharged|released)\s+(?:from|of)\s+(?:the\s+)?"
    r"(?P<place>hospital|prison|jail|rehab|hospice|quarantine|intensive\s+care|icu)\b(?!\s+(?:shift|job|work|run)\b)"
    r"|(?P<zh>出院|出狱|出ICU|出月子)",
    re.I,
)
_ZH_STAY = {"出院": "住院 医院", "出狱": "坐牢 监狱", "出ICU": "ICU 重症", "出月子": "月子"}
_EN_HOLDER = re.compile(
    r"(?P<who>[\w'’ ]+?)(?:'s|’s|\s+(?:is|was|has\s+been|got|came|went|been))?\s*(?:now\s+|finally\s+)?$"
)


# "I swim instead of running now", "we take the bus rather than drive these days": what is done now, in place of what
# was — said of the present (now, these days, anymore; 现在, 如今), so "tea instead of coffee today" ends nothing.
_PRESENT_WORDS = r"now|these\s+days|nowadays|currently|any\s?more"
_INSTEAD_OF = re.compile(
    rf"\b(?:instead\s+of|rather\s+than)\s+(?P<what>[a-z][\w'’ -]{{2,40}}?)"
    rf"(?=\s*(?:[,.;:!?)\u2014\u2013]|$|\b(?:{_PRESENT_WORDS})\b))",
    re.I,
)
_PRESENT = re.compile(rf"\b(?:{_PRESENT_WORDS})\b", re.I)
# …or a choice made in its place: "going with butcher block instead of the grey quartz", "opted for oat milk rather
# than soy", "chose Lisbon instead of Porto" (not a one-off "went with the train rather than the car")
_CHOSEN = re.compile(
    r"\b(?:going|sticking|opt(?:ed|ing)|chose|choosing|decided|settled)"
    r"\s+(?:with|for|on)\b|\bchose\b",
    re.I,
)


# A birth ends a pregnancy (the words of one never name the other: "28 weeks pregnant", then "baby girl arrived").
_BORN = re.compile(
    r"\b(?:baby|babies|twins|son|daughter)\b[^.!?]{0,20}?\b(?:arrived|was\s+born|were\s+born|is\s+here|born)\b"
    r"|(?:宝宝|孩子|儿子|女儿|双胞胎)[^，。！？；]{0,6}?(?:出生了|出世了|生了|生下来了)",
    re.I,
)
PREGNANCY_TERMS = subject_terms("pregnant pregnancy expecting 怀孕 孕期 预产")  # as the statements' terms are read


# An ability or a permission gained, said as new: "she can finally work", "cleared to run again", 终于能开车了. The
# doing is the verb after it; the words that say it is new (finally, now, again, at last; 终于, 现在, 总算) must be
# there.
_GAINED = re.compile(
    r"\b(?:can|could|(?:am|is|are)\s+(?:now\s+|finally\s+)?(?:able|allowed|cleared)\s+to)\s+"
    r"(?:now\s+|finally\s+|officially\s+|legally\s+|at\s+last\s+)*(?P<verb>[a-z]{2,})\b"
    r"|(?:终于|现在|总算|已经)(?:可以|能够|能)(?P<zh>[\u4e00-\u9fff]{1,2})",
    re.I,
)
_NEWLY = re.compile(r"\b(?:finally|now|again|at\s+last|officially)\b|终于|现在|总算|已经", re.I)
_NOT_DOINGS = frozenset("be have get do go see say tell help make imagine believe wait".split())  # noqa: SIM905


def _gained(clause: str) -> Change | None:
    found = _GAINED.search(clause)
    if found is None or not _NEWLY.search(clause) or _UNREAL_EN.search(clause[: found.start()]):
        return None
    verb = (found.group("verb") or found.group("zh")).lower()
    if verb in _NOT_DOINGS:
        return None
    return Change("ended", frozenset({verb}), (), found.group(), gained=True)


def denies(text: str, doing: str) -> bool:
    """Whether ``text`` says ``doing`` cannot, may not or is not done ("she can't work yet", "I don't drive",
    还不能开车, 我不吃辣)."""
    return bool(
        re.search(
            rf"(?:can['’]?t|cannot|can\s+not|couldn['’]?t|not\s+(?:yet\s+)?(?:allowed|able|cleared)\s+to|unable\s+to"
            rf"|don['’]?t|do\s+not|doesn['’]?t|never)"
            rf"\s+(?:\w+\s+)?{re.escape(doing)}\b|(?:不能|不可以|没法|不让|不准|不会|不|没)[\u4e00-\u9fff]?{re.escape(doing)}",
            text,
            re.I,
        )
    )


# A value said to hold still, beside a new one: "still saturdays too", "saturdays as well", 周六也还上
_STILL = re.compile(r"\b(?:still|also|as\s+well)\b|\btoo\b(?!\s+[a-z])|还|也|仍", re.I)  # not "got too pricey"
_PIECE_END = re.compile(r"[,，、;；。.!?！？:：]")


def _still(text: str, value: Value) -> bool:
    """Whether ``value`` is said to hold still ("still saturdays too", "spin Saturdays still on", 还是周六上午): a word
    of it near the value, with no break between them (现在上B2，还是周六上午: only 周六 is kept)."""
    reach = 24 if value.kind == "name" else 12  # a name is kept with its verb between ("still shop at Tesco")
    for found in _STILL.finditer(text, max(0, value.start - reach), value.end + reach):
        between = text[min(found.end(), value.end) : max(found.start(), value.start)]
        if not _PIECE_END.search(between):
            return True
    return False


# What a correction says was wrong, by name, at the end of a clause: "…, not penicillin", "不是青霉素".
_DENIED = re.compile(
    r"(?:\bnot\s+(?:the\s+|a\s+|an\s+)?|不是)(?P<what>[\w\u4e00-\u9fff'’-]{2,24}?(?:\s+[a-z'’-]{2,24}){0,2})"
    # a Chinese particle after it is no part of it (不是中学哈: the 中学)
    r"(?:\s+(?:after\s+all|actually|at\s+all))?[哈啊呀啦嘛呢哦喔吧]*\s*[.!。！]*\s*(?:[,，;；]|$)",
    re.I,
)


def _denied(text: str) -> Change | None:
    """A correction naming what was wrong and no typed value (see _DENIED): a ``corrected`` change about those words,
    the denied thing kept in ``negated`` (an older statement must hold all of it)."""
    found = _DENIED.search(text)
    if found is None:
        return None
    about = subject_terms(found.group("what"))
    if not about:
        return None
    what = Value("thing", found.group("what").lower(), found.start("what"), found.end("what"))
    return Change("corrected", about, (), found.group().strip(" ,，;；.!。！"), negated=(what,))


def _instead_of(clause: str, values: list[Value], start: int) -> Change | None:
    """What ``clause`` says is no longer done because something else is done now in its place (see _INSTEAD_OF); a
    typed value denied there ("instead of the 12th") is a corrected value, read elsewhere."""
    found = _INSTEAD_OF.search(clause)
    if found is None or (_PRESENT.search(clause) is None and _CHOSEN.search(clause, 0, found.start()) is None):
        return None
    if any(found.start("what") <= v.start - start < found.end("what") for v in values):
        return None
    about = _first_terms(found.group("what"))
    return Change("ended", about, (), found.group().split()[0]) if about else None


def _left_place(clause: str) -> Change | None:
    """The end of a stay ``clause`` tells (see _LEFT_PLACE), else None."""
    found = _LEFT_PLACE.search(clause)
    if found is None:
        return None
    if found.group("zh"):
        about = frozenset().union(*(subject_terms(w) for w in _ZH_STAY[found.group("zh").upper()].split()))
        before = _without_adverbs(re.split(r"[，、]", clause[: found.start()])[-1])
        holder = frozenset() if re.search(r"[我咱]", before) else subject_terms(before)
    else:
        about = subject_terms(found.group("place"))
        who = _EN_HOLDER.search(clause[: found.start()])
        holder = subject_terms(who.group("who")) if who else frozenset()
    return Change("ended", about, (), found.group(), seller=holder, keeps_holder=True)


_SPEAKERS = re.compile(r"\b(?:me|my|our|us)\b|我|咱", re.I)
_EN_DOER = re.compile(
    rf"^\s*(?:(?:so|and|also|btw|oh|well|ok|okay|lol|but|now)\s+)*"
    rf"(?P<who>(?:my|our|his|her|their)\s+(?:[a-z]+\s+)?{PERSON_NOUN}"
    r"|(?-i:[A-Z][a-z][\w'-]*)|he|she|they)(?!\s+and\s|\s*&)(?:['’]s)?\b",
    re.I,
)


_SOMEONE_ELSE = re.compile(
    rf"\b(?:my|our)\s+(?:[a-z]+\s+)?{PERSON_NOUN}\b|\b(?:he|she|they|him|his|her|hers|their)\b", re.I
)


def speaks_of_someone(text: str) -> bool:
    """Whether ``text`` speaks of someone besides its speaker: one of their people ("my daughter", 我妹), a pronoun, or
    a name — an ending someone else did may be theirs ("Ella's given up the violin" ends "my daughter plays violin")."""
    return (
        _SOMEONE_ELSE.search(text) is not None
        or _ZH_OTHER_PERSON.search(text) is not None
        or any(v.kind == "name" for v in find_values(text))
    )


_TIE = re.compile(rf"\b(?:my|our|his|her|their)\s+(?:[a-z]+\s+)?(?P<tie>{PERSON_NOUN})\b", re.I)
_ZH_TIE = re.compile(ZH_KIN)


def ties(text: str) -> frozenset[str]:
    """The terms of the people ``text`` names by their tie ("my sister", "her friend", 我老公): how
    :func:`_doer` names who did something."""
    found = [m.group("tie") for m in _TIE.finditer(text)] + [m.group() for m in _ZH_TIE.finditer(text)]
    return frozenset(t for tie in found for t in subject_terms(re.sub(r"^我\s*", "", tie)))


def _doer(before: str, about: frozenset[str]) -> frozenset[str]:
    """The terms of the person the words ``before`` an ending open with, when it is not the speaker and not what ended
    ("my husband quit smoking": husband; "Milo ran away": none, Milo is what ended; "she quit": none, unnamed)."""
    # the piece the ending is in (a Chinese clause runs past its commas), after a heading ("Big news: I've…")
    before = re.split(r"[,，、;；:：]", before)[-1]
    found = _EN_DOER.match(before) if before.isascii() else ZH_SOMEONE.match(before)
    if found is None:
        return frozenset()
    who = (found.group("who") or found.group()).strip()
    if who.lower() in ("he", "she", "they") or who in ("他", "她"):
        return frozenset()  # whom a pronoun names the older statement may not say ("she's a nurse" … "she quit")
    if who.lower().removesuffix("'s") in NOT_NAMES or re.fullmatch(r"我\s*的?|它", who):
        return frozenset()
    terms = subject_terms(re.sub(r"^(?:my|our|his|her|their)\s+|^我\s*", "", who, flags=re.I))
    return frozenset() if not terms or terms & about else terms


def _seller(clause: str, ending: re.Match[str]) -> frozenset[str]:
    """The terms of who sold or gave away what ``ending`` ends, when the clause names someone other than the speaker
    before the verb ("Mr. Ito sold the building", "my landlord sold…", 王阿姨把房子卖了); empty for the speaker's own
    ("I sold the Civic", 我把车卖了: "I" is no term) and for any other ending."""
    if not _TRANSFER.fullmatch(ending.group()):
        return frozenset()
    found = (_EN_SELLER if ending.group().isascii() else _ZH_SELLER).search(clause[: ending.start()])
    if found is None or re.search(r"[我咱]", found.group("who")):
        return frozenset()
    return subject_terms(found.group("who"))


# Leaving one's working life, said with no object: what ends is the person's work, not the person ("Omar retired on
# Friday" leaves "Omar is my brother-in-law" and "Omar loves fishing" current; 我妈退休了).
_WORKING_LIFE = re.compile(r"retired|退休|离职|辞职|辞了|不干了", re.I)
# …and one's studies, by graduating or qualifying (我弟毕业了, "my sister graduated!", "qualified as a paramedic"): what
# ends is what was said of the studying or training.
_STUDY_LIFE = re.compile(r"graduated(?:\s+from)?|qualified\s+as|毕业", re.I)
# "qualified as a paramedic": what is named after it is what they became, not what ended
_BECAME = re.compile(r"qualified\s+as", re.I)
STUDY_TERMS = frozenset(
    stem(t)
    for word in (
        "student studying study school college university uni degree course undergrad undergraduate phd masters",
        "training trainee apprentice apprenticeship",
        "在读 读书 上学 大学 大一 大二 大三 大四 高一 高二 高三 初一 初二 初三",
        "研一 研二 研三 读研 读博 博士 硕士 学校 专业 本科 学生",
    )
    for t in query_terms(word)
    if _names_something(t)
)
WORK_TERMS = frozenset(
    stem(t) for word in (*WORK_WORDS, *OCCUPATION_HEADS.split("|"), *ZH_WORK_WORDS, *ZH_OCCUPATION_WORDS)
    for t in query_terms(word) if _names_something(t)
)  # fmt: skip


def _retiree(clause: str, ending: re.Match[str], about: frozenset[str]) -> frozenset[str]:
    """Who retired or left their job, when ``ending`` says so with no object after it ("Omar retired on Friday", Kevin
    离职了): the terms of the person (read as the ending's subject), else empty."""
    rest = clause[ending.end() :]
    if not ending.group().isascii():  # 我弟毕业了，去深圳找工作了: what follows the comma is another clause
        rest = re.split(r"[，。！？；,;]", rest)[0].lstrip("了")
    lives = _WORKING_LIFE.fullmatch(ending.group()) or _STUDY_LIFE.fullmatch(ending.group())
    if not lives or (not _BECAME.fullmatch(ending.group()) and not _NO_OBJECT.match(rest) and _first_terms(rest)):
        return frozenset()
    return about


# Verbs of mind that name no state of one's life: "doesn't matter anymore", "don't think so anymore".
_MENTAL = frozenset(
    ["think", "know", "care", "matter", "mind", "feel", "believe", "remember", "understand", "guess", "mean", "say"]
)
_NEW_VALUE_ZH = re.compile(r"换成了?|改成了?")
# Words of when and how around what ended (现在班主任换成了…, 酒已经不喝了, 车早就卖了): never what ended.
_ZH_ADVERBS = re.compile(
    r"已经|早就|现在|最近|终于|暂时|彻底|正式|突然|总算|今天|昨天|前天|上周|上个月|去年|刚刚|(?:也|都|就|还|再|又|刚)+$"
)


def _without_adverbs(text: str) -> str:
    return _ZH_ADVERBS.sub("", _ZH_ADVERBS.sub("", text))


def _stops_doing(cue: str) -> bool:
    """Whether the ending ``cue`` is one of :data:`_STOPPED_ZH` (不喝了, 不吃白米饭了, 戒), read by its characters."""
    return cue == "戒" or re.fullmatch(_NO_LONGER_ZH, cue) is not None or _NOT_LATELY_CUE.fullmatch(cue) is not None


def _plain_stop(cue: str) -> str:
    """A stopped doing's cue as 不/没 + verb (+ what) + 了: 没有打球了 → 没打球了 (its verb second, as in 不喝了)."""
    return re.sub(r"^没(?:有|再)", "没", cue)


# How long since, after what is given up (戒烟三个月了: 烟): when, not what
_SINCE_ZH = re.compile(r"(?:[\d一二两三四五六七八九十半几]+个?(?:天|周|星期|礼拜|月|年)|好久|很久|一阵子?|第).*$")


def _stopped_chars(clause: str, ending: re.Match[str]) -> frozenset[str]:
    """For 不 + verb (+ what) + 了 (酒已经不喝了, 不吃白米饭了): the verb and the last two characters of what is no
    longer done (喝, 酒); for 戒 + what (戒奶茶): the first two of what is given up. Chinese says the thing and the verb
    apart and in either order (每天晚上喝一小杯红酒), so an older statement speaks of it when it holds all of them, not
    when it shares a two-character term; empty for any other ending."""
    cue = ending.group()
    if not _stops_doing(cue):
        return frozenset()
    if cue == "戒":  # 戒奶茶: what is given up follows the verb, said without it later (喝奶茶)
        after = _SINCE_ZH.sub("", clause[ending.end() :])
        return frozenset([c for c in after if c in _content_chars(after)][:2])
    cue = _plain_stop(cue)
    said = cue[2:-1] or _without_adverbs(clause[: ending.start()])  # 不吃白米饭了 names it; 酒不喝了 before it
    last = [c for c in said if c in _content_chars(said)][-2:]
    if not last:
        # nothing named: a verb that is itself a pastime is what stopped (最近不跑了: the running), not 不去了, 不吃了
        return frozenset(cue[1]) if cue[1] in _PASTIME_VERBS else frozenset()
    return frozenset([*last, cue[1]])


_PASTIME_VERBS = frozenset("跑游骑练抽弹画跳")


# "Omar retired on Friday": what follows the verb is when or where, not what ended.
_NO_OBJECT = re.compile(
    r"\s*(?:on|at|in|last|this|next|yesterday|today|tonight|after|before|since|early|late|recently|again)\b", re.I
)


# A possessor before what it has: "Leo's swimming" (not "Leo's moved", "choir's on Thursdays": 's of "has" or "is").
# English only: a Chinese possessor's terms run into its thing's (朵朵的钢琴课: 朵的, 的钢).
_OWNER = re.compile(
    r"\b(?P<who>[A-Za-z][\w-]*)['’]s\s+(?!(?:[a-z]+ed|[a-z]+ly|been|got|gone|just|not|now|still|back|off|on|at|in|"
    r"into|to|from|with|for|a|an|the|my|his|her|their|our|going|moving|getting|coming|doing|being|been)\b)[a-z]",
    re.I,
)


def _owners(clause: str) -> frozenset[str]:
    """The terms of whose thing ``clause`` speaks of (its possessors): a new value is of the thing, not of everything
    said of its owner ("Leo's swimming moves to Thursdays" changes no day of "Leo starts reception next Wednesday")."""
    return frozenset(t for m in _OWNER.finditer(clause) for t in subject_terms(m.group("who")))


# Verbs that move a thing in time: what the change does, not what it is about ("moves to Thursdays").
_MOVING = re.compile(r"\b(?:mov|push|switch|bump|reschedul|postpon)\w*", re.I)


def _when_terms(clause: str) -> frozenset[str]:
    """The terms of ``clause``'s time words ("next week", "from this month": the words the time rules are triggered by)
    and of its verbs of moving a thing in time: a change of one thing's time is not about every statement naming a week
    or a move."""
    words = [w for w in re.findall(r"[a-z]+", clause.lower()) if w in TRIGGER_WORDS]
    return frozenset(t for said in [*words, *_MOVING.findall(clause)] for t in subject_terms(said))


def _carried_subject(text: str, start: int, clause: str, ending: re.Match[str]) -> frozenset[str]:
    """The person a Chinese ending with nothing before it in its clause is said of: Chinese leaves out a subject said
    in a clause before, in the same sentence (王阿姨年底要回安徽老家，不干了) — the nearest one that opens with someone
    named (:data:`~flowmem.scoring.people.ZH_SOMEONE`)."""
    if ending.group().isascii():
        return frozenset()
    *before_it, own = re.split(r"[，,、]", re.split(r"[。！？；!?;\n]", text[: start + ending.start()])[-1])
    if _without_adverbs(own).strip():
        return frozenset()  # the clause says its own subject
    for before in reversed(before_it):
        opens = ZH_SOMEONE.match(before)
        if opens is not None:
            return subject_terms(opens.group("who") or "") or frozenset()
    return frozenset()


def _first_terms(text: str, *, last: bool = False) -> frozenset[str]:
    """The first (or last) few subject terms of ``text``: an object is a short phrase."""
    terms = _first_terms_in_order(text)
    return frozenset(terms[-3:] if last else terms[:3])


def _first_terms_in_order(text: str) -> list[str]:
    return [stem(t) for t in query_terms(text) if _names_something(t)]


def _spans(text: str, breaks: re.Pattern[str], values: list[Value]) -> list[tuple[int, int]]:
    """The stretches of ``text`` between ``breaks``; a break inside a value ("dana.karr@example.com") is none."""
    spans, start = [], 0
    for match in breaks.finditer(text):
        if any(v.start <= match.start() < v.end for v in values):
            continue
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def holds_chars(text: str, change: Change) -> bool:
    """Whether ``text`` holds every character of an ended thing that is read by its characters (:func:`_stopped_chars`:
    喝 and 酒 of 酒已经不喝了); False for a change read by its terms."""
    return change.kind == "ended" and bool(change.beside) and change.beside <= _content_chars(text)
