"""Which way a bare name points: the tense of the clause that holds it.

A bare name ("on Saturday", "the 28th", "March 19", 周六, 五月, "Christmas") recurs, so it needs a
direction to become a date. :class:`TenseReader` reads it from the words of the clause the expression
stands in, never from another clause of the message: in "Also I told my manager, my last day there is
March 19" the date is in "my last day there is March 19", a schedule, and "told" is another clause's
verb. Where clauses begin and end is :mod:`flowmem.timeexpr.clauses`.

Tense cues (each a word or two at a place in the text):

- **future** — plan or future wording: "will", "'ll", "going to", "gonna", "plan to", "want to",
  "can't wait", "looking forward", "booked", "scheduled", "plans", "what's on", a present
  progressive ("we are having dinner on Friday", "what are we doing on Friday?"), a timetable
  present ("the course starts in May", "my lease ends in February", "the package arrives on
  Friday"); 要, 会, 打算, 准备, 计划, 将, 想, 约了, 预约, 记得.
- **future** too — a present "is"/"are"/"am": "my dentist appointment is on the 28th", "my last day
  is March 19" state a schedule (what is over is told with "was").
- **past** — past wording: "did", "was", "were", "had", "went", "ago", regular past forms ("visited",
  "watched"), common irregular ones ("met", "saw", "took"); 了, 过, 已经, 刚 (刚才, 刚回来).

The rule, for an expression at a place in the text:

1. Its **segment** (its clause, or the fragment of one it stands in: "On Friday", "and Bob on
   Friday") decides if it has a cue: the one that governs the date, which is the nearest cue before
   it in English (an adjunct follows its verb: "the photos we took on Sunday", "she said the party
   is on the 28th") or, with none before, the first after ("On Friday I went", "the party on
   Saturday was fun"); in Chinese the first cue after it (a time word stands before its verb and 了/过
   after: 周二看过的房子, 周日要再去), else the nearest before.
2. A segment without a cue is a fragment of its **clause** ("I met Anna and Bob on Friday", "On
   Friday, I went to the gym"): the same reading over the whole clause.
3. A Chinese segment whose time word is followed by a verb of its own with no aspect word (五月份去云南, 八月份领养
   一只狗) is a **plan**, future, in a message: what is done is told with 了, 过 or the 是…的 form (五月份去的云南).
   A query keeps its lean (past).
4. A clause without a cue is **neutral**; the caller's ``lean`` decides (queries lean past: people
   ask a memory about what happened; messages lean nowhere: :func:`flowmem.timeexpr.pick.choose`
   reads neutral as today's or the coming occurrence of a near name — a weekday, a day of the month,
   a date within a month — else the nearer one). So a date in reported speech or a bare deadline with
   no verb of its own (他说周五来, "25号搬走") is the coming one when it is near.

Why it generalises: the tense that places an event is the one of the verb the date modifies, and
that verb is in the date's own clause; the words of other clauses (the saying, the reason, the
relative clause about something else) describe other events.
"""

from __future__ import annotations

import itertools
import re
from typing import Literal

from flowmem.timeexpr import clauses, holidays
from flowmem.timeexpr.texting import shortened

Tense = Literal["past", "future", "neutral"]
TENSES: tuple[Tense, ...] = ("past", "future", "neutral")

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
# English is read word by word (sets, not one large regex: a clause costs a few µs, not a dozen).
_EN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_EN_FUTURE_WORDS = frozenset(
    {"will", "won't", "shall", "gonna", "wanna", "upcoming", "tomorrow", "soon", "booked", "scheduled", "reserved",
     "planned", "invited", "let's", "plans", "happening", "agenda", "what's"}
) | shortened("tomorrow")  # fmt: skip
_EN_FUTURE_PAIRS = frozenset(
    {("going", "to"), ("plan", "to"), ("planning", "to"), ("plans", "to"), ("want", "to"), ("wants", "to"),
     ("hope", "to"), ("hoping", "to"), ("about", "to"), ("need", "to"), ("have", "to"), ("has", "to"),
     ("can't", "wait"), ("cannot", "wait"), ("looking", "forward"), ("coming", "up"), ("remind", "me"),
     ("don't", "forget"), ("is", "due"), ("are", "due")}
)  # fmt: skip
# A timetable present: a scheduled event told in the simple present ("the course starts in May").
_EN_TIMETABLE = frozenset(
    {"starts", "begins", "ends", "opens", "closes", "arrives", "departs", "leaves", "expires", "lands", "returns"}
)  # fmt: skip
# A progressive of going or coming tells a plan even when texting leaves out its "is" ("rent going up from feb 1", "mum
# coming over fri"); after "was"/"were" it is a past one.
_EN_GOING = frozenset({"going", "coming"})
_EN_PAST_BE = frozenset({"was", "were", "wasn't", "weren't", "been"})
_EN_BE = frozenset({"am", "is", "are", "i'm", "we're", "you're", "they're", "he's", "she's", "it's"})
_EN_PAST_WORDS = frozenset(
    {"did", "didn't", "was", "wasn't", "were", "weren't", "had", "went", "ago", "yesterday", "earlier", "already",
     "met", "saw", "took", "got", "came", "ate", "made", "bought", "gave", "told", "said", "left", "ran", "drove",
     "flew", "spent", "found", "felt", "began", "won", "lost", "heard", "wrote", "sent", "caught", "brought",
     "slept", "paid", "wore", "kept", "sang", "swam", "rode", "fell", "broke", "forgot", "taught", "thought",
     "sold", "threw", "drank", "knew"}
) | shortened("yesterday")  # fmt: skip
# Adjectives in -ed say nothing about when: "excited about Saturday", "tired on Monday".
_EN_NOT_PAST = frozenset(
    {"excited", "interested", "tired", "bored", "scared", "worried", "supposed", "based", "related", "red",
     "married", "engaged", "used", "pleased", "thrilled", "nervous", "stressed", "exhausted", "delighted",
     "embed", "shed", "hundred", "need", "feed", "speed", "bed", "seed", "indeed", "breed", "proceed", "succeed",
     "sacred", "naked", "wicked", "beloved", "advanced", "detailed", "limited"}
)  # fmt: skip
# 会 and 要 also sit inside other words: 开会 (a meeting), 董事会, 会议, 重要 (important), 主要 (main).
_ZH_FUTURE = re.compile(
    r"(?<![重主只])要|(?<![开例晚聚宴舞集大社机约事员工协学体误运都])会(?!议|議)|打算|准备|计划|将要|将会|想去|想要|约了|约好|预约|预定|预订|定在|定于|安排在|排在|记得|别忘|到时候|届时|即将"
)
# 刚 before a verb is "just did" (周四刚回来); 刚好 (just right), 刚需, 刚性 and 刚强 are other words.
# 那天 opening a telling is "that day" (past); after a day's name it is "the day of" it (七号那天搬家, 小年那天回老家):
# no tense of its own. 过 after a verb is "have done" (去过); as the verb "spend" (过年, 过生日, 在婆婆家过) it is none.
_ZH_PAST = re.compile(
    r"了|(?<![家里裡边邊儿兒])过(?![年节節生日子])|已经|刚(?![好需性强毅])|曾经|(?<![号日节節年夜期拜天夕宵秋阳陽庆慶旦诞誕午明一二三四五六七八九十\d])那天"
)
# A time moved to or set for (改到28号了, 推迟到下周): the 了 tells that the plan changed, not that the event is past.
_ZH_RESCHEDULED = re.compile(r"(?:改|推迟?|挪|延期?|提前|调|换)(?:到|在|成)[^，。！？；,!?;]{1,12}?了")


# A word that opens a time: a digit, next/this, tomorrow/tonight, a weekday or a month (the lookahead of a time a plan
# is moved to or has now)
_OPENS_A_TIME = (
    r"\d|next\b|this\b|tomorrow|tonight|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
)
# A time moved to ("they moved me to Monday", "we've postponed the housewarming to the 21st", "pushed back till next
# week"): the past verb tells that the plan changed, not that the new time is past — the "to" before the time is a
# future cue (nearer the time than the verb). Only before a word that opens a time: "moved to Denver on Friday" is a
# move.
_EN_RESCHEDULED = re.compile(
    # any form of the verb: "had to move the wedding to the 14th of June" as "moved it to the 21st"
    r"\b(?:mov(?:e|es|ed|ing)|push(?:es|ed|ing)?|postpon(?:e|es|ed|ing)|reschedul(?:e|es|ed|ing)|shift(?:s|ed|ing)?"
    r"|bump(?:s|ed|ing)?|delay(?:s|ed|ing)?|br(?:ing|ought)\s+forward|put\s+off|chang(?:e|es|ed|ing)"
    r"|switch(?:es|ed|ing)?)"
    r"(?P<what>(?:\s+[\w'’]+){0,4}?)\s+(?P<to>to|till|until|for)\s+(?:the\s+)?"
    rf"(?={_OPENS_A_TIME}|end\b|mid|early\b|late\b|later\b)",
    re.I,
)
# "now" right before a time: the time a plan has now ("xmas do now thurs 11th", "physio's now on Monday"), a future cue
_EN_NOW_AT = re.compile(
    rf"\bnow\s+(?:(?:on|at|is|it's|its)\s+)?(?:the\s+)?(?={_OPENS_A_TIME})",
    re.I,
)
# Verbs of arranging something or of hearing or telling of it: the act that makes or passes on a plan, done before the
# plan itself ("booked the vet yesterday", "Mum rang last night", "signed up today", 昨天订好了机票, 打电话约了).
_ARRANGING = re.compile(
    r"\b(?:book(?:ed|ing)?|call(?:ed)?|rang|phoned|emailed|texted|messaged|signed\s+up|register(?:ed)?|appl(?:y|ied)"
    r"|enrol(?:l?ed)?|order(?:ed)?|paid|sent(?:\s+off)?|posted|found\s+out|heard|learn(?:ed|t)|told|said|says|mentioned"
    r"|confirm(?:ed|ation)?|arrang(?:e|ed)|schedul(?:e|ed)|reserv(?:e|ed)|invit(?:e|ed|ation)|bought\s+(?:the\s+|our\s+|my\s+)?"
    r"tickets?)\b"
    r"|订好?了|约好?了|预约|报了?名|打了?电话|通知|告诉|说了?|买好?了[^，。！？；]{0,3}票|确认",
    re.I,
)


def arranges(text: str, offset: int) -> bool:
    """Whether the segment of ``text`` around ``offset`` (a time's place) tells of arranging something, or of hearing
    or telling of it (see _ARRANGING): "Booked the vet yesterday", 昨天订好了机票 — not 我们周二吵了一架."""
    start, end = clauses.around(text, offset, clauses.SEGMENT_BREAK)
    return _ARRANGING.search(text, start, end) is not None


# Where a Chinese moved time begins: 改到, 推迟到, 提前到, 挪到周五.
ZH_MOVE_VERBS = r"(?:改|推迟|挪|延期|延后|顺延|提前|调|换)"  # the verbs that move a plan in time, also read by facts
_ZH_MOVED_TO = re.compile(rf"{ZH_MOVE_VERBS}(?:到|在|成)")


def moved_objects(text: str) -> list[tuple[int, str]]:
    """Each English rescheduling of ``text`` as (where its verb begins, the words between the verb and the "to" of the
    new time): "moved Tom's surgery forward to this Thursday" → "Tom's surgery forward"; "got moved to Friday" → ""."""
    return [(m.start(), m.group("what").strip()) for m in _EN_RESCHEDULED.finditer(text)]


def moved_to(text: str) -> list[int]:
    """Where the new times of plans moved in ``text`` begin ("physio's off Thursday, they moved me to Monday": the
    offset of "Monday"; 拔牙改到下周五: of 下周五), in text order. The time a plan was moved to is the one it now
    has: the event's date, the one its memory keeps."""
    found = [m.end() for m in _EN_RESCHEDULED.finditer(text)] + [m.end() for m in _EN_NOW_AT.finditer(text)]
    if not text.isascii():
        found += [m.end() for m in _ZH_MOVED_TO.finditer(text)]
    return sorted(found)


_DAY_WORDS = frozenset({"yesterday", "tomorrow"}) | shortened("yesterday") | shortened("tomorrow")
# A state one enters by an event ("married", "engaged": not past in "I'm married"), said with its day and without the
# verb before it ("Married Saturday, best day ever", "engaged last night!"): the event, past. After "getting", "be",
# "'m" it is the state or a plan.
_EN_EVENT_STATES = frozenset({"married", "engaged"})
_EN_DAY_NAMES = frozenset(
    " ".join(
        ("yesterday last on monday tuesday wednesday thursday friday saturday sunday",
         "mon tue tues wed thu thurs fri sat sun")
    ).split()
)  # fmt: skip
_EN_STATE_VERBS = frozenset(
    "get gets getting got be being been am is are was were im i'm we're you're they're will gonna".split()  # noqa: SIM905
)
_HAVE_GOT = re.compile(r"(?:have|has|\w+'ve|\w+'s)$")
Cue = tuple[int, Tense]
"""A tense word at a character offset."""


def cues(text: str) -> list[Cue]:
    """The tense cues of ``text`` in text order (see the module docstring)."""
    found: list[Cue] = []
    if not text.isascii():
        found += [(m.start(), "future") for m in _ZH_FUTURE.finditer(text)]
        moved = [m.span() for m in _ZH_RESCHEDULED.finditer(text)]
        found += [(a, "future") for a, _ in moved]
        moved += [m.span() for m in _ZH_SOON.finditer(text)]  # 九月就上小学了: a state to come, no past
        found += [(m.start(), "past") for m in _ZH_PAST.finditer(text) if not any(a < m.start() < b for a, b in moved)]
    found += [(m.start("to"), "future") for m in _EN_RESCHEDULED.finditer(text)]
    found += [(m.start(), "future") for m in _EN_NOW_AT.finditer(text)]
    matches = list(_EN_WORD.finditer(text.lower().replace("’", "'")))
    words = [m.group() for m in matches]
    for index, word in enumerate(words):
        if word in _DAY_WORDS:
            continue  # a time of its own, not the tense of another: "booked the vet yesterday for the jabs on Friday"
        if word == "got" and index and _HAVE_GOT.match(words[index - 1]):
            continue  # "I've got two weeks off": having, now — not a past event
        if word in _EN_EVENT_STATES and words[index + 1 : index + 2] and words[index + 1] in _EN_DAY_NAMES:
            if not index or words[index - 1] not in _EN_STATE_VERBS:  # "Married Saturday" (not "getting married…")
                found.append((matches[index].start(), "past"))
            continue
        if word in _EN_GOING and (not index or words[index - 1] not in _EN_PAST_BE):
            tense: Tense | None = "future"  # "rent going up to 1525 from feb 1": a progressive, its "is" left out
        else:
            tense = _en_cue(word, words[index + 1 : index + 3])
        if tense is not None:
            found.append((matches[index].start(), tense))
    found.sort(key=lambda cue: cue[0])
    return found


def _en_cue(word: str, following: list[str]) -> Tense | None:
    if word in _EN_FUTURE_WORDS or word in _EN_TIMETABLE or word.endswith("'ll"):
        return "future"
    if following and (word, following[0]) in _EN_FUTURE_PAIRS:
        return "future"
    if word in _EN_PAST_WORDS or (word.endswith("ed") and len(word) > 3 and word not in _EN_NOT_PAST):
        return "past"
    if word in _EN_BE:
        return "future"  # a present progressive of a plan ("we are having dinner"), or a schedule ("is on the 28th")
    return None


def governing(found: list[Cue], offset: int, chinese: bool) -> Tense:
    """The tense of the cue that governs an expression at ``offset``: English the nearest before, else the
    first after; Chinese the first after, else the nearest before; ``"neutral"`` without cues."""
    before = [tense for at, tense in found if at < offset]
    after = [tense for at, tense in found if at >= offset]
    order = (after[:1], before[-1:]) if chinese else (before[-1:], after[:1])
    for side in order:
        if side:
            return side[0]
    return "neutral"


_SINCE = re.compile(r"(?:\bsince\s+(?:the\s+)?|自从|自打)$", re.I)


_UNTIL = re.compile(r"\b(?:until|till|til)\s+(?:the\s+)?$", re.I)
_TOLD_PAST = re.compile(r"\b(?:was|were|had|did|wasn't|weren't|hadn't|didn't)\b[^.!?;\n]*$", re.I)


class TenseReader:
    """The tense at any offset of a text: fixed, or read from the clause there (cues cached per stretch).

    Args:
        text: The whole text.
        tense: A fixed tense for every expression, or ``None`` to read it from the words.
        lean: What neutral wording means (``"past"`` for queries, ``"neutral"`` for messages).
    """

    __slots__ = ("_cache", "_lean", "_tense", "_text")

    def __init__(self, text: str, tense: Tense | None, lean: Tense) -> None:
        self._text, self._tense, self._lean = text, tense, lean
        self._cache: dict[tuple[int, int], list[Cue]] = {}

    def at(self, offset: int) -> Tense:
        """The tense at an expression starting at ``offset``: its segment's, else its clause's, else the lean."""
        if self._tense is not None:
            return self._tense
        if _SINCE.search(self._text, max(0, offset - 16), offset):
            return "past"  # "off work since Monday", 自从周一: what has lasted since a time began before now
        until = _UNTIL.search(self._text, max(0, offset - 16), offset)
        if until and not _TOLD_PAST.search(self._text[max(0, until.start() - 60) : until.start()]):
            return "future"  # "the pool's closed till summer": a state that lasts from now until then
        for breaks in (clauses.SEGMENT_BREAK, clauses.CLAUSE_BREAK):
            start, end = clauses.around(self._text, offset, breaks)
            found = self._cache.get((start, end))
            if found is None:
                found = self._cache[(start, end)] = [(start + at, t) for at, t in cues(self._text[start:end])]
            tense = governing(found, offset, _CJK.search(self._text, start, end) is not None)
            if tense != "neutral":
                return tense
            if breaks is clauses.SEGMENT_BREAK and _own_predicate(self._text, offset, end):
                # A Chinese time word before a verb with no aspect word (五月份去云南, 八月份领养一只狗) tells a plan: a
                # thing done is told with 了, 过 or the 是…的 form (五月份去的云南). Messages only; a query leans past.
                plan = self._lean == "neutral" and not _ZH_DONE_FORM.search(self._text, offset, end)
                plan = plan and not _ZH_SOON.search(self._text[offset:end])  # 就…了: by then, either way: the nearer
                return "future" if plan else self._lean
            if breaks is clauses.SEGMENT_BREAK and (
                _OWN_SUBJECT.match(self._text, start, offset)
                or _ZH_COPULA_BEFORE.search(self._text, start, offset)
                or _PRESENT_VERB_BEFORE.fullmatch(self._text, start, offset)
                or _ZH_COPULA_ALONE.fullmatch(self._text, start, offset)
            ):
                break  # a clause of its own after a comma ("I already told HR, my contract ends on 31 Dec")
        return self._lean


# A segment that begins with a subject of its own and a verb after it ("my contract finish on 31 Dec" after "I already
# inform HR,") is a clause spliced on with a comma, not a fragment of the clause before: it does not take that
# clause's tense. A fragment has no subject of its own ("On Friday", "Bob on Friday", "her birthday on the 5th").
_OWN_SUBJECT = re.compile(
    r"\s*(?:(?:my|our|his|her|their|your|its|i|we|he|she|they|the|this|that)\s+"
    # its verb a word of its own or contracted onto it ("The party's on the 22nd, I already bought a dress")
    r"(?:[a-z'’]+\s+[a-z'’]+|[a-z]+['’](?:s|re|ll|d|ve))"
    # or a pronoun with its verb contracted onto it ("…, and I've got my first assignment due on the 6th")
    r"|(?:i|we|you|he|she|they)['’](?:ve|m|re|ll|d|s)\s+[a-z]+)\b",
    re.I,
)


# A segment that is a verb in the present with no subject, then the time ("Insured with Larkspur, renews in July",
# "lease ends on the 30th" after a comma): a clause of its own in the present, not the clause before it ("Insured" is
# no past here). Only a verb ending in -s right before the time (and its preposition): a present that tells a schedule.
_PRESENT_VERB_BEFORE = re.compile(
    r"\s*(?:and\s+|but\s+|it\s+|which\s+)?[a-z]{2,}(?<![su'’])s\s+(?:(?:in|on|at|from|by|until|till)\s+)?(?:the\s+)?",
    re.I,
)


# A Chinese time word stands before its verb: a segment that goes on after it with a verb of its own (三月份结婚，
# 酒席已经订好了) is a clause, not a time topicalised before the next one (上周，我们去了北京: the time alone).
_ZH_TIME_WORD = re.compile(
    r"[\d一二三四五六七八九十两几上下本这今明昨前后去年月日号周星期礼拜天末初底中旬份点半早晚午夜凌晨来]+"
)


# A Chinese segment that is the copula and the time, its subject said before (不对，是七月十三号，我记错了): a
# clause of its own too — the 了 of 记错了 is the mistake's, not the date's.
_ZH_COPULA_ALONE = re.compile(r"\s*(?:应该是|就是|是|在|定在|改在|改到)\s*")
# A Chinese segment that says its subject is at a time (马拉松在四月二十号, 婚礼定在五月): a clause of its own.
_ZH_COPULA_BEFORE = re.compile(r"[\u4e00-\u9fff](?:在|是|定在|定于|安排在|改在)$")


# 就 (or 快, 要) after a time and 了 after the verb: the 了 of a state coming about by then (九月就上小学了,
# 下周就开学了, 月底快到期了), not of a thing done.
_ZH_SOON = re.compile(r"(?<=[月周号天年底初])(?:就要|就|快要|快)[^，。！？；了过]{1,8}了(?=[，。！？；,!?;\s]|$)")
_ZH_DONE_FORM = re.compile(r"的")  # 是…的: 五月份去的云南, 上个月搬过来的


def _own_predicate(text: str, offset: int, end: int) -> bool:
    """Whether the Chinese segment holding a time word at ``offset`` (and ending at ``end``) says a verb after it."""
    # 九月, 9月1日, 15号: a time word in Chinese, its number in digits or not; or a holiday's name (国庆节回老家)
    word = _ZH_TIME_WORD.match(text, offset) or _ZH_HOLIDAY.match(text, offset)
    if word is None or not _CJK.search(text, offset, word.end()):
        return False
    rest = text[word.end() : end]
    if _ZH_RANGE_TO.match(rest):  # 3月10日到3月14日: the range's other end, then what follows it
        more = _ZH_TIME_WORD.match(rest, _ZH_RANGE_TO.match(rest).end())  # type: ignore[union-attr]
        rest = rest[more.end() :] if more else rest
    if _ZH_BEING_AT.match(rest):
        return False  # 三月十日我们在里斯本: where one was or will be, no verb of a plan: the nearer
    return len(_CJK.findall(rest)) >= 2


_ZH_HOLIDAY = re.compile(holidays.ZH_NAMES)
_ZH_RANGE_TO = re.compile(r"\s*(?:到|至|~|～|-|–)\s*")
_ZH_BEING_AT = re.compile(r"\s*(?:我们|他们|她们|你们|我|他|她|你|咱们)(?:都|也|还|正|一直)?在")  # someone was/is at


# Past forms that tell a state or a saying, not something done: "I was tired", "we had a dog", "I lived in Oslo".
_EN_NOT_DONE = frozenset(
    {"was", "wasn't", "were", "weren't", "had", "did", "didn't", "felt", "thought", "knew", "said", "told", "ago",
     "already", "earlier", "lived", "worked", "loved", "liked", "hated", "wanted", "needed", "seemed", "owned",
     "believed", "hoped", "used", "supposed", "been"}
)  # fmt: skip
_EN_DONE = frozenset({"done", "finished", "over"})  # "Dentist done", "day one done"
# A duration says how long a state has held, not that something happened today: 已经三年了, "for six years".
_DURATION = re.compile(
    r"[\d一二两三四五六七八九十几半]+\s*(?:年|个月|周|星期|天)了"
    r"|\b(?:for|since)\s+(?:about\s+|over\s+|almost\s+|nearly\s+)?(?:\w+\s+)?(?:years?|months?|weeks?|days?|ages)\b",
    re.I,
)
_ZH_DONE = re.compile(r"(?<![为除])了(?!解)|刚刚|刚才")
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？\n]*")
_ZH_CLAUSE = re.compile(r"[，,；;]")


def reports_done(text: str) -> bool:
    """Whether a sentence of ``text`` tells of something done (a past action; no plan, question or duration in that
    sentence): "signed the lease!!", "cancelled the veggie box.", "Dentist done", 终于搬完家了, 把脚崴了. Told without
    a date, it happened the day it was told — the reading a listener gives it, and the one that keeps two such days
    apart."""
    return any(_done(m.group()) for m in _SENTENCE.finditer(text))


def _done(sentence: str) -> bool:
    if sentence.rstrip().endswith(("?", "？")) or _DURATION.search(sentence):
        return False
    if _CJK.search(sentence):  # clause by clause: 去医院拍了片子，…，要养三周 tells of something done today
        clauses = _ZH_CLAUSE.split(sentence)
        return any(_ZH_FUTURE.search(c) is None and _ZH_DONE.search(c) and not _DURATION.search(c) for c in clauses)
    words = _EN_WORD.findall(sentence.lower().replace("’", "'"))
    planned = any(w in _EN_FUTURE_WORDS or w in _EN_TIMETABLE or w.endswith("'ll") for w in words)
    if planned or any(pair in _EN_FUTURE_PAIRS for pair in itertools.pairwise(words)):
        return False
    return any(w in _EN_DONE or (w not in _EN_NOT_DONE and _en_cue(w, []) == "past") for w in words)
