"""Typed values a statement holds — what changes when a fact about the same thing changes.

"Eli's practice is Wednesdays 5pm" and "coach moved Eli's practice to Thursdays" hold a value of the same
*kind* (a weekday) with different contents; "my email is dana.kerr@…" and "it's dana.karr@…" an email. The
kinds are recognised by their form, not by the words around them, so they hold whatever the sentence says
about them: weekdays (Mon… / 周三 / 星期三, and lists of them: "tues + thurs"), clock times (7pm, 5:30, 十点,
晚上一点), days of a month (August 4th, the 13th, 3月19号), amounts (110kg, $1,200, 一万五), e-mail addresses,
phone numbers and handles (mumu_1998). :func:`find_values` lists them with their place, so a change can be
written into the older statement (:mod:`flowmem.scoring.change`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from flowmem.scoring.occupations import EN_OCCUPATION
from flowmem.scoring.people import NOT_NAMES
from flowmem.timeexpr.numerals import ZH_NUMERAL_CHARS, zh_number


@dataclass(frozen=True)
class Value:
    """One typed value in a text: its kind, its normalised content (equal contents say the same), its span."""

    kind: str
    norm: str
    start: int
    end: int


WHEN_KINDS = frozenset({"weekday", "date", "clock", "frequency"})  # the kinds that say when, not what

_EN_DAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_ZH_DAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_EN_DAY = r"(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|rsday|urday)?s?\b\.?"
_ZH_DAY = r"(?:周|星期|礼拜)[一二三四五六日天]"
_DAY = rf"(?:\b{_EN_DAY}|{_ZH_DAY})"
_JOIN = r"(?:\s*(?:\+|&|/|、|和|跟|及|and|or)\s*)"
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# a month's name, whole or cut short ("Novablast 5" is a shoe, not 5 November)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
_ORD = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_ZH_NUM = rf"[\d{ZH_NUMERAL_CHARS}]{{1,3}}"
# an hour with its am/pm or minutes (a range's ends: "2pm", "7:30", "11 pm"), and one said bare ("9 to 6")
_HOUR = r"(?:[01]?\d|2[0-3])(?::[0-5]\d\s*(?:am|pm)?|\s*(?:am|pm))"
_BARE_HOUR = r"(?:1[0-2]|0?[1-9])"
_DAY_OR_SHIFT = (
    *_EN_DAYS, "tues", "thurs", "day", "days", "shift", "shifts", "hours", "lates", "earlies", "nights", "mornings",
    "evenings", "shifts are", "shift is", "hours are",
)  # fmt: skip
_AFTER_A_DAY = "(?:" + "|".join(f"(?<={word}\\s)" for word in _DAY_OR_SHIFT) + ")"  # right after one of them

_COUNT_WORDS = {"once": 1, "twice": 2, "thrice": 3, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
_PER = {"day": "day", "week": "week", "month": "month", "year": "year", "天": "day", "日": "day", "周": "week",
        "星期": "week", "礼拜": "week", "月": "month", "个月": "month", "年": "year"}  # fmt: skip
_FREQUENCY = (
    r"\b(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\s*(?:x|times?|days?|nights?|sessions?)"
    r"\s+(?:a|per|each|every)\s+(?P<per>day|week|month|year)\b"
    r"|\b(?P<n2>once|twice|thrice)\s+(?:a|per|each|every)\s+(?P<per2>day|week|month|year)\b"
    rf"|(?:每|一)(?P<per3>天|日|周|星期|礼拜|个月|月|年)[^，。！？；,.!?;\s\d]{{0,4}}?(?P<n3>{_ZH_NUM})次"
)
_MEASURE_COUNT = r"half\s+an?|one\s+and\s+a\s+half|a\s+half|one|two|three|four|five|a|an"
_MEASURES = r"cups?|scoops?|tablespoons?|teaspoons?|tbsp|tsp|glass(?:es)?|slices?|sachets?|pouch(?:es)?|cans?"
_WORD_COUNTS = {"half a": 0.5, "half an": 0.5, "a half": 0.5, "one and a half": 1.5, "a": 1.0, "an": 1.0}
_MEASURE = re.compile(rf"(?P<count>\d+(?:\.\d+)?|{_MEASURE_COUNT})\s+(?P<unit>{_MEASURES})")
_MEASURE_UNITS = {"tablespoon": "tbsp", "tablespoons": "tbsp", "teaspoon": "tsp", "teaspoons": "tsp"}
_CURRENCY_NAMES = frozenset(
    {"euro", "pound", "quid", "dollar", "buck", "yuan", "rmb", "usd", "eur", "gbp", "aud", "cad", "pcm"}
)
# What a sum of money is, just before it: "rent is now 850", "rent: 1450", "salary's 42000" (fixed-width look-behinds,
# one for each way of joining the word to its number).
_SUM_WORDS = ("rent", "salary", "wage", "wages", "pay", "price", "cost", "fee", "fees", "bill", "budget", "mortgage",
              "deposit", "allowance", "pension")  # fmt: skip
_AFTER_A_SUM = "|".join(
    f"(?<=\\b{word}{join})"
    for word in _SUM_WORDS
    for join in (" ", ": ", " is ", "'s ", " is now ", "'s now ", " now ", " was ", " of ")
)
_LABEL_NOT = (  # words before a number that label nothing: grammar, counting, verbs of having and doing
    "at|on|in|to|for|of|by|with|from|about|around|than|like|is|was|are|were|be|been|am|the|a|an|and|or|but|so|if"
    "|then|this|that|these|those|my|our|your|his|her|their|its|me|us|them|him|it|we|you|they|he|she|only|just"
    "|every|each|per|next|last|first|top|over|under|up|down|off|out|into|onto|till|until|since|after|before"
    "|between|nearly|almost|have|has|had|got|get|gets|do|did|does|make|made|take|took|see|saw|need|needs|want"
    "|wants|all|both|some|any|no|not|roughly|approx|maybe|another|other|more|less|least|most|going|gone|went|im"
    "|i'm|age|aged|turned|turning|turns|scored|score|won|lost|beat|ran|run|x|times|plus|minus|nor|vs|v"
    # adverbs of time and verbs of paying: "rent is now 850", "paying 900 now" say an amount, not a label's number
    "|now|still|already|currently|again|also|pay|pays|paid|cost|costs|spend|spent|earn|earns|earned|charge|charges"
    "|charged|owe|owes|[a-z]+ing"
)
_NUMBERED_LABEL = (
    rf"\b(?!(?:{_LABEL_NOT})\b)(?P<label>[a-z][a-z'’]{{1,15}})(?:\s+|-)(?P<n>\d{{1,3}}[a-z]?)s?\b"
    r"(?![:.,/]\d|\s*(?:%|am\b|pm\b|st\b|nd\b|rd\b|th\b)|\s+[a-z]+s\b|\s+(?:kg|lbs?|km|mg|ml|g|k|mins?|hours?|hrs?"
    r"|days?|weeks?|months?|years?|times?|people|kids?|euros?|pounds?|quid|dollars?|bucks?)\b|[-–]\d)"
    r"|(?-i:(?<![A-Za-z0-9])(?P<level>[A-C])(?P<grade>[12])(?![A-Za-z0-9]))"  # a level of a language (B1, 上B2)
    r"|\b(?P<under>under|over|u)-?(?P<age>\d{1,2})s?\b(?=\s*(?:$|[.,;:!?)]|\s+(?:at|for|team|squad|side)\b))"
    # a school year in Chinese: 三年级, 初二, 高三, 大一 (not 初一 of a month: 初一 alone is a lunar day)
    r"|(?P<grade_zh>[一二三四五六\d])年级|(?<![月最当起正])(?P<stage>初|高|大)(?P<year_zh>[一二三四])(?=学生|新生|了|的|[，。！？；,.!?;\s]|$)"
)
_PATTERNS: tuple[tuple[str, str], ...] = (
    ("email", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    # no Latin letter or digit either side (Chinese runs into it: 现在是13987654321)
    ("phone", r"(?<![A-Za-z0-9_.])\+?\d[\d\s().-]{5,18}\d(?![A-Za-z0-9_.])"),
    ("handle", r"(?<![\w@.])[a-z][a-z0-9]*_[a-z0-9_]+(?![\w@])|(?<![\w@.])[a-z]{2,}\d{2,}(?![\w@])"),
    # how often: "3x a week", "twice a day", "4 days a week", 每周三次, 一天两次 (before the weekday: 每周三次 is no
    # Wednesday)
    ("frequency", _FREQUENCY),
    # which one of the month's, when said ("the first Sunday of the month": not "the last Sunday")
    ("weekday", rf"(?:\b(?:first|second|third|fourth|last)\s+)?{_DAY}(?:{_JOIN}{_DAY})*"),
    (
        "date",
        rf"\b{_MONTH}\s+{_ORD}\b|\b{_ORD}\s+(?:of\s+)?{_MONTH}|\bthe\s+{_ORD}\b"
        rf"|\b(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)\b|(?:{_ZH_NUM}月)?{_ZH_NUM}[号日]",
    ),
    # hours from one time to another, one value ("2pm to 11pm", "9 to 6", "7:30-4"): a shift, opening hours; bare
    # numbers only with "to"/"till" and no unit after them ("3 to 4 days", "won 3-1" are none)
    (
        "clock",
        rf"\b{_HOUR}\s*(?:-|–|to|till|until)\s*{_HOUR}(?![a-z])"
        rf"|\b{_BARE_HOUR}\s+(?:to|till|until)\s+{_BARE_HOUR}\b(?!\s*(?:[a-z%]|-))"
        # with a dash, only after a day or shift it is the hours of ("mondays 10-2", "tues 9-5"; not "won 3-1")
        rf"|{_AFTER_A_DAY}(?:1[0-2]|0?[1-9])\s*[-–]\s*(?:1[0-2]|0?[1-9])\b"
        r"(?!\s*(?:(?:days?|weeks?|months?|years?|hours?|hrs?|mins?|times|goals?|points?|kg|km)\b|%|-|/|:))",
    ),
    (
        "clock",
        r"\b(?:[01]?\d|2[0-3])(?::[0-5]\d)?\s*(?:am|pm|a\.m\.|p\.m\.)(?![a-z])|\b(?:[01]?\d|2[0-3]):[0-5]\d\b"
        # an hour said bare after "at" ("my shift starts at 8"), not a count ("at 8 weeks", "at 30%", "at 3 options")
        r"|(?<=\bat )(?:[01]?\d|2[0-3])\b(?![:.,]\d|\s*(?:%|(?:years?|yrs?|weeks?|months?|days?|kg|km|miles?|mph|people"
        r"|kids?|times?|percent|degrees?)\b|\s+[a-z]+s\b))"
        rf"|(?:早上|上午|中午|下午|晚上|凌晨|夜里)?{_ZH_NUM}点(?:半|{_ZH_NUM}分?)?",
    ),
    # how long: "45 min each way", "12.5 hour nights", 单程一个半小时, 通勤二十分钟 (not "2 hours ago": a time)
    (
        "duration",
        r"\b\d+(?:\.\d+)?\s*-?\s*(?:minutes?|mins?|hours?|hrs?)\b(?!\s+(?:ago|later|earlier|before|after)\b)"
        rf"|(?:[\d{ZH_NUMERAL_CHARS}]{{1,3}}个?半?|半个?)(?:小时|钟头)|[\d{ZH_NUMERAL_CHARS}]{{1,3}}分钟",
    ),
    (
        "amount",
        r"[$£€¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?[km]\b)?|\b\d[\d,]*(?:\.\d+)?\s*(?:kg|kgs|lbs?|km|miles?|mi|k|%"
        # units of a dose or a measure: "sertraline 50mg" then "bumped to 100mg"
        r"|mg|mcg|µg|ug|g|ml|cl|l|oz|iu|units?|cm|mm|m|ft)(?![a-z])"
        rf"|[\d{ZH_NUMERAL_CHARS}]{{1,3}}万[\d{ZH_NUMERAL_CHARS}]?(?:块|元)?|\d+(?:\.\d+)?\s*(?:块|元|公斤|斤|公里|千米)"
        # a sum in thousands said in numerals (房租两千五, 工资八千, 学费两千八)
        r"|[一二两三四五六七八九]千[零一二两三四五六七八九]?(?:百)?(?:块|元)?"
        # a rate ("1450 a month", "$30/wk", 一年168) and a price with its cents ("7.99"), which only a sum is
        r"|\b\d[\d,]*(?:\.\d+)?(?=\s*(?:a|an|per|/)\s*(?:month|week|year|day|night|hour|mo|wk|yr|hr)\b)"
        r"|(?<=[每一][年月周天])\d+(?:\.\d+)?|\b\d+\.\d\d\b"
        # a number an amount went up or down to ("rent going up to 1525")
        r"|(?<=\bup to )\d[\d,]*(?:\.\d+)?\b|(?<=\bdown to )\d[\d,]*(?:\.\d+)?\b"
        # a sum with its currency's name ("800 euros", "50 quid", "3000 rmb"), or said as what a sum of money is
        # ("rent is now 850", "rent: 1450", "salary's 42000"); 月租4000, 4000一个月
        rf"|\b\d[\d,]*(?:\.\d+)?\s*(?:{'|'.join(sorted(_CURRENCY_NAMES))})s?\b"
        rf"|(?=\d)(?:{_AFTER_A_SUM})\d[\d,]*(?:\.\d+)?\b(?![.,:/]\d|\s*(?:%|am\b|pm\b|[a-z]+s\b|day\b|week\b|month\b))"
        r"|(?<=一个月|每个月)\d+(?:\.\d+)?|\d+(?:\.\d+)?(?=一个?月|每个?月|/月)"
        # a dose counted in pills (一片半, 两粒, 半片)
        rf"|[\d{ZH_NUMERAL_CHARS}]{{1,3}}(?:片|粒|颗)半?|半(?:片|粒|颗)"
        # a measure of food or drink, its number in words too ("half a cup twice a day", "two scoops", 3 tbsp)
        rf"|\b(?:\d+(?:\.\d+)?|{_MEASURE_COUNT})\s+(?:{_MEASURES})\b",
    ),
    # a year said alone ("expires in 2027", "2029 not 2027", 2026年)
    ("year", r"(?<![\d/.:-])(?:19|20)\d{2}(?![\d/.:-])(?:年)?"),
    # a label and the number it has now ("ward 7B", "hardstuck gold 2", "the under-10s", "Pegasus 41", B1 in German
    # class): the label names the thing, so the same label with another number is the same thing changed. Not a count
    # ("have 2 cats": a plural after it), not a word of grammar before it ("at 5", "is 3"), not a year or a clock.
    ("numbered", _NUMBERED_LABEL),
)
_FOUND = [(kind, re.compile(pattern, re.I)) for kind, pattern in _PATTERNS]
_FREQUENCY_RE = next(pattern for kind, pattern in _FOUND if kind == "frequency")
_NUMBERED_RE = next(pattern for kind, pattern in _FOUND if kind == "numbered")


def may_number(text: str) -> bool:
    """Whether ``text`` may hold a ``numbered`` value (a label and its number: "gold 2", "year 5"): the pattern's
    lookarounds are read only where a digit or a Chinese numeral is."""
    return _ANY_NUMBER.search(text) is not None and _NUMBERED_RE.search(text) is not None


# Kinds whose every form holds a digit or a Chinese numeral: a text with neither skips them (most chat lines; their
# patterns' lookarounds cost ~30 µs a text).
_OFTEN = re.compile(r"次|\b(?:a|per|each|every)\s+(?:day|week|month|year)\b", re.I)  # what a frequency needs
_NUMBERED = frozenset({"phone", "date", "clock", "duration", "amount", "year", "numbered"})
_MEASURE_WORD = re.compile(rf"\b(?:{_MEASURES})\b", re.I)  # a measure said with its number in words ("a cup")
_ANY_NUMBER = re.compile(rf"[\d{ZH_NUMERAL_CHARS}半]")
# A job title said of someone: after "as", a copula or "promoted to" ("as a junior designer", "I'm now a senior
# engineer", "name badge came in: Senior Designer"), ending in an occupation (:mod:`flowmem.scoring.occupations`) —
# "I met a designer" names a person, not what anyone is.
_JOB = re.compile(
    r"(?:\b(?:as|am|'m|is|are|was|were|be|been|became|become|becoming|promoted\s+to)\s+(?:now\s+|still\s+)?"
    rf"(?:an?\s+)?|:\s*)(?P<v>{EN_OCCUPATION})",
    re.I,
)
# A title opening a clause, at a named place: "associate at Hartley & Boyd from Monday", "barista at Costa now"
_JOB_AT = re.compile(
    rf"(?:^|(?<=[.!?;:,]))\s*(?P<v>{EN_OCCUPATION})(?=\s+(?:at|for|with)\s+(?:the\s+)?(?-i:[A-Z]))", re.I
)
# A name: capitalised words inside a sentence ("my manager is Kevin", "now called Clayhouse", "moved Leo to St
# Anselm's"), Latin script only; a capital that opens a sentence says nothing. Found last: a weekday, a month or an
# e-mail is its own kind.
# The pronoun "I" goes on no name: "As a junior designer at Fold Studio I mostly resize banners" names "Fold Studio".
# A title with its dot is part of the name it stands before ("Ms. Okafor", "Dr. Osei": not a name "ms" and another).
_NAME = re.compile(
    r"\b(?:(?:Mr|Mrs|Ms|Mx|Dr|Prof)\.?\s+)?[A-Z][a-zA-Z'’&-]*(?:\s+(?:(?:of|de|&)\s+)?(?!I\b)[A-Z][a-zA-Z'’&-]*)*"
)
_TITLE = re.compile(r"^(?:mr|mrs|ms|mx|dr|prof)\.?\s+")
# A month said alone is a time, not a name ("graduation was in July").
_MONTH_WORDS = frozenset(
    "january february march april june july august september october november december".split()  # noqa: SIM905
)
_SENTENCE_END = '.!?。！？:;\n"“—-'


def find_values(text: str) -> list[Value]:
    """The typed values in ``text``, in order; where two kinds claim the same words, the first listed wins (an
    e-mail address is not also a handle)."""
    return list(_values_of(text))


@lru_cache(maxsize=8192)
def _values_of(text: str) -> tuple[Value, ...]:
    # Remembered by text: the write path reads a memory's values when it splits, keys, compares and supersedes, and a
    # stored memory again for every new one it is a candidate of (a Value is frozen).
    found: list[Value] = []
    taken: list[tuple[int, int]] = []
    numbered = _ANY_NUMBER.search(text) is not None or _MEASURE_WORD.search(text) is not None
    often = _OFTEN.search(text) is not None
    for kind, pattern in _FOUND:
        if (not numbered and kind in _NUMBERED) or (kind == "frequency" and not often):
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < b and a < end for a, b in taken):
                continue
            norm = _normalise(kind, match.group())
            if norm:
                found.append(Value(kind, norm, start, end))
                taken.append((start, end))
    for match in (*_JOB.finditer(text), *_JOB_AT.finditer(text)):
        start, end = match.span("v")
        if not any(start < b and a < end for a, b in taken):
            found.append(Value("job", " ".join(match.group("v").lower().split()).rstrip("s"), start, end))
            taken.append((start, end))
    for match in _NAME.finditer(text):
        start, end = match.span()
        before = text[:start].rstrip()
        if not before or before[-1] in _SENTENCE_END:  # the capital opens a sentence: the next words may be a name
            rest = re.match(r"\S+\s+(?=[A-Z])", match.group())
            if rest is None:
                continue
            start += rest.end()
        name = _TITLE.sub("", re.sub(r"['’]s$", "", text[start:end]).lower())  # "Ms. Okafor", "Okafor": one person
        if text[start:end].isupper() and len(text[start:end]) <= 4:
            continue  # an abbreviation (PR, ICU, GP), not a name
        if name not in NOT_NAMES and name not in _MONTH_WORDS and not any(start < b and a < end for a, b in taken):
            found.append(Value("name", name, start, end))
    return tuple(sorted(found, key=lambda v: v.start))


def same(a: Value, b: Value) -> bool:
    """Whether ``a`` and ``b`` say the same value: a day of the month without its month ("the 25th", 25号) is any
    month's."""
    if a.kind != b.kind:
        return False
    if a.kind == "date" and "?" in (a.norm.split("-")[0], b.norm.split("-")[0]):
        return a.norm.split("-")[1] == b.norm.split("-")[1]
    return a.norm == b.norm


def differ(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` hold values of one kind with other contents ("gym tues + thurs" and "gym mon + wed"):
    alike in words, but not the same fact."""
    mine, theirs = _by_kind(a), _by_kind(b)
    for kind in mine.keys() & theirs.keys():
        if kind == "name":  # a name may be left out ("Emma, my sister, is based in Berlin"): another one must be said
            if mine[kind] - theirs[kind] and theirs[kind] - mine[kind]:
                return True
        elif mine[kind] != theirs[kind]:
            return True
    return numbers_differ(a, b)


def numbers_differ(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` say numbers bare that differ ("year 12" / "year 13", 三年级 / 四年级, "14 Elm Road" /
    "41 Elm Road"): one on each side that the other does not say."""
    mine_n, theirs_n = _numbers(a), _numbers(b)
    return bool(mine_n - theirs_n and theirs_n - mine_n)


# A bare number: digits, or Chinese numerals (一 alone is too often "a"/"one" inside a word: 一起, 一下).
_NOT_ONE = ZH_NUMERAL_CHARS.replace("一", "")
_NUMBER = re.compile(rf"\d+(?:\.\d+)?|[{ZH_NUMERAL_CHARS}]{{2,}}|[{_NOT_ONE}]")


# differ() compares a text with many others (a query's candidates, pair by pair): each text's values are read once.
@lru_cache(maxsize=4096)
def _numbers(text: str) -> frozenset[str]:
    return frozenset(_NUMBER.findall(text))


@lru_cache(maxsize=4096)
def _by_kind(text: str) -> Mapping[str, frozenset[str]]:
    kinds: dict[str, set[str]] = {}
    for value in find_values(text):
        kinds.setdefault(value.kind, set()).add(value.norm)
    return MappingProxyType({kind: frozenset(norms) for kind, norms in kinds.items()})


def _normalise(kind: str, raw: str) -> str:
    text = raw.lower().strip()
    if kind == "weekday":
        days = sorted({_day(m.group()) for m in re.finditer(_DAY, text, re.I)})
        which = re.match(r"(first|second|third|fourth|last)\s", text)
        return (f"{which.group(1)}:" if which else "") + ",".join(map(str, days))
    if kind == "phone":
        digits = re.sub(r"\D", "", text)
        return digits if len(digits) >= 7 else ""
    if kind == "date":
        return _date(text)
    if kind == "clock":
        return _clock(text)
    if kind == "amount":
        return _amount(text)
    if kind == "duration":
        return _duration(text)
    if kind == "year":
        return text.removesuffix("年")
    if kind == "frequency":
        return _frequency(text)
    if kind == "numbered":
        return _numbered(raw)
    return text


def _numbered(raw: str) -> str:
    """``label:number``: "ward 7B" → ``ward:7b``, "under-10s" → ``under:10``, B1 → ``level:b1``."""
    found = _NUMBERED_RE.fullmatch(raw.strip())
    if found is None:
        return ""
    if found["level"]:
        return f"level:{found['level'].lower()}{found['grade']}"
    if found["grade_zh"]:
        return f"grade:{zh_number(found['grade_zh']) or found['grade_zh']}"
    if found["stage"]:
        return f"{found['stage']}:{zh_number(found['year_zh'])}"
    if found["under"]:
        return f"{'over' if found['under'].lower() == 'over' else 'under'}:{found['age']}"
    return f"{found['label'].lower()}:{found['n'].lower()}"


def _frequency(text: str) -> str:
    """``n/per``: "3x a week" → ``3/week``, "twice a day" → ``2/day``, 每周三次 → ``3/week``."""
    found = _FREQUENCY_RE.fullmatch(text)
    if found is None:
        return ""
    count = found["n"] or found["n2"] or found["n3"]
    per = found["per"] or found["per2"] or found["per3"]
    number = _COUNT_WORDS.get(count) or (int(count) if count.isdigit() else zh_number(count))
    return f"{number}/{_PER[per]}" if number else ""


def _duration(text: str) -> str:
    """Minutes: "45 min" → ``45 min``, "12.5 hour" → ``750 min``, 一个半小时 → ``90 min``, 半小时 → ``30 min``."""
    number = re.match(r"\d+(?:\.\d+)?", text)
    if number is not None:
        count = float(number.group())
    else:
        zh = re.match(rf"([\d{ZH_NUMERAL_CHARS}]{{0,3}})", text).group(1)  # type: ignore[union-attr]
        whole = zh_number(zh) if zh else 0
        if whole is None:
            return ""
        count = whole + (0.5 if "半" in text else 0)
    hours = "小时" in text or "钟头" in text or re.search(r"\b(?:hours?|hrs?)\b", text) is not None
    return f"{count * 60 if hours else count:g} min"


def _day(word: str) -> int:
    word = word.lower()
    if word[0] in "周星礼":
        return _ZH_DAYS[word[-1]]
    return _EN_DAYS[word[:3]]


def _date(text: str) -> str:
    zh = re.fullmatch(rf"(?:({_ZH_NUM})月)?({_ZH_NUM})[号日]", text)
    if zh:
        month, day = zh_number(zh.group(1) or ""), zh_number(zh.group(2))
        return "" if not day else f"{month}-{day}" if month else f"?-{day}"
    day_match = re.search(r"\d+", text)
    month = next((i + 1 for i, name in enumerate(_MONTHS) if re.search(rf"\b{name}", text)), None)
    if day_match is None:
        return ""
    return f"{month}-{int(day_match.group())}" if month else f"?-{int(day_match.group())}"


def _clock(text: str) -> str:
    ends = re.split(r"\s*(?:-|–|to|till|until)\s*", text)
    if len(ends) == 2 and all(ends):  # a range: both ends
        return "-".join(_clock(end) for end in ends)
    en = re.match(r"(\d{1,2})(?::(\d\d))?\s*(am|pm|a\.m\.|p\.m\.)?", text)
    if en and en.group(1):
        hour, minute = int(en.group(1)), int(en.group(2) or 0)
        return f"{hour % 12}:{minute:02d}"
    zh = re.search(rf"({_ZH_NUM})点(半|({_ZH_NUM})分?)?", text)
    if zh is None:
        return ""
    zh_hour = zh_number(zh.group(1))
    zh_minute = 30 if zh.group(2) == "半" else (zh_number(zh.group(3) or "") or 0)
    return "" if zh_hour is None else f"{zh_hour % 12}:{zh_minute:02d}"


def _amount(text: str) -> str:
    pills = re.fullmatch(rf"([\d{ZH_NUMERAL_CHARS}]{{0,3}})(片|粒|颗)(半)?|半(片|粒|颗)", text)
    if pills:  # 一片半: 1.5 pills; 半片: 0.5
        whole = zh_number(pills.group(1)) if pills.group(1) else 0
        if whole is None:
            return ""
        return f"{whole + (0.5 if pills.group(3) or pills.group(4) else 0):g} pill"
    zh = re.match(rf"([\d{ZH_NUMERAL_CHARS}]{{1,3}})万([\d{ZH_NUMERAL_CHARS}])?", text)
    if zh:
        tens, rest = zh_number(zh.group(1)), zh_number(zh.group(2)) if zh.group(2) else 0
        return "" if tens is None or rest is None else f"{tens * 10000 + rest * 1000} money"
    thousands = re.match(r"([一二两三四五六七八九])千([零一二两三四五六七八九])?", text)
    if thousands:  # 两千五: 2,500; 八千: 8,000
        lead, rest = zh_number(thousands.group(1)), zh_number(thousands.group(2)) if thousands.group(2) else 0
        if lead is None or rest is None:
            return ""
        return f"{lead * 1000 + rest * 100}" + (" money" if text.endswith(("块", "元")) else "")
    measure = _MEASURE.fullmatch(text)
    if measure is not None:  # "half a cup": 0.5 cup; "2 tablespoons": 2 tbsp
        count = " ".join(measure.group("count").split())  # "half  a", "half\na": one space, as the table has it
        how_many = float(count) if count[0].isdigit() else _WORD_COUNTS.get(count) or _COUNT_WORDS[count]
        unit = measure.group("unit")
        unit = _MEASURE_UNITS.get(
            unit, unit.removesuffix("es") if unit.endswith(("ches", "sses")) else unit.rstrip("s")
        )
        return f"{how_many:g} {unit}"
    number = re.search(r"\d[\d,]*(?:\.\d+)?", text)
    if number is None:
        return ""
    value = float(number.group().replace(",", ""))
    unit = text[number.end() :].strip()
    if text[0] in "$£€¥" or unit in ("块", "元") or unit.rstrip("s") in _CURRENCY_NAMES:
        value *= 1000 if unit == "k" else 1
        unit = "money"
    elif unit in ("kgs", "公斤"):
        unit = "kg"
    elif unit in ("公里", "千米"):
        unit = "km"
    elif unit in ("µg", "ug"):
        unit = "mcg"
    elif unit == "unit":
        unit = "units"
    return f"{value:g} {unit}"
