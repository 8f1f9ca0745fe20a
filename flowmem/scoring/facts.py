"""One fact per memory, without an LLM: a message that states several facts, split into them.

"I live in Milan with my dog Rex. I work as a nurse." holds three facts; stored as one memory, the
day the user says "I moved to Turin" the whole message is superseded and the dog's name goes with it.
So the offline write path splits a message into the user's own words, one fact each:

1. sentences (``. ! ?`` followed by a space, ``; 。 ！ ？ ；`` and line breaks; "Dr." and "e.g." are not ends);
2. clauses: "and" / "but" / a comma joining an independent clause with its own subject ("..., and my
   sister lives in Rome"; Chinese "，我…");
3. a single-valued fact followed by a named companion ("in Milan with my dog Rex") becomes two facts,
   "I live in Milan" and "my dog Rex", so superseding the first keeps the second.

A part carries a fact when it scores at least ``min_info`` (:mod:`flowmem.scoring.info`); a part that
does not ("It's tiny.") stays with the fact before it, so no word is dropped — unless both name a time
("I moved today! Housewarming on Saturday."): a memory has one event time. Before the first fact, a part
that says nothing of the user ("Great news!") joins it, and a first-person one stands alone. A message
with one fact comes back whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from itertools import pairwise

from flowmem.scoring.info import info_score
from flowmem.scoring.slots import DEFAULT_RULES, SlotRules
from flowmem.timeexpr import ExtractedTime, expression_spans, extract_all, has_time_words
from flowmem.timeexpr.tense import ZH_MOVE_VERBS, moved_to

_ABBREVIATIONS = {"dr", "mr", "mrs", "ms", "st", "mt", "jr", "sr", "vs", "etc", "e.g", "i.e", "approx", "no"}
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|(?<=[;。！？；])\s*|\n+")
_SUBJECT = r"(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|we'd)\b"
# "my sister lives …", "our cat just had …": a possessive subject counts only with a verb close behind it,
# so "with Tom and my sister" stays one clause.
_OTHER_SUBJECT = (
    r"(?:(?:my|our|his|her|their)\s+(?:\w+\s+){1,2}|(?:he|she|they)\s+)"
    r"(?:is|are|was|were|has|have|had|will|can|just|also|\w+ed|\w+s)\b"
)
# After a bare comma "we" goes on about what the clause before named ("I sing in the choir, we rehearse Thursdays":
# the choir rehearses), so it starts no fact of its own; after "and"/"but" it does.
_CLAUSE_JOIN = re.compile(
    rf"(?:,?\s+(?:and|but|plus)\s+(?={_SUBJECT}|{_OTHER_SUBJECT})|,\s+(?=(?!we\b|we['’]){_SUBJECT}|{_OTHER_SUBJECT}))",
    re.I,
)
# Chinese drops a subject the clause before has given: "我叫小林，是人民医院的护士，养了两只猫" is three clauses of 我.
_ZH_CLAUSE_JOIN = re.compile(r"[，,]\s*")
_ZH_SUBJECT = re.compile(
    r"^(?:因为|所以|但是?|可是|不过|而且|其实|现在|目前)?(?:我|他|她|它|[^，。！？；\s]{1,4}(?:和|跟)我)"
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_COMPANION = re.compile(r",?\s+with\s+(?P<who>(?:my|our)\s+[^,.;!?，。！？；]+)", re.I)
_ZH_COMPANION = re.compile(r"(?:和|跟)(?P<who>我的?[^，。！？；,.!?;\s]{1,10}?)(?=一起)?(?=住|搬|在)")

Span = tuple[int, int]


def split_facts(text: str, *, min_info: int = 2, rules: SlotRules = DEFAULT_RULES) -> list[str]:
    """The facts ``text`` states, each in its own words; ``[text]`` (spaces collapsed) when it states one or none.

    Args:
        text: A message.
        min_info: The info score a part needs to be a fact of its own.
        rules: The single-valued facts whose named companions are split off.
    """
    text = " ".join(text.split()) if "\n" not in text else text.strip()
    groups: list[Span] = []  # consecutive parts, so each fact is a stretch of the message as written
    pending: int | None = None  # where parts that carry nothing ("Great news!") before the first fact began
    timed = False  # whether the last group names a time
    before = 0  # where the part before this one ended (its joining word, ", but", left out)
    for (start, end), score in _scored_parts(text):
        own_time = has_time_words(text[start:end]) and not _moved_only(text[start:end])
        # A leading statement never joins the fact after it; a part naming its own time never joins a fact that
        # names another ("I moved today! Housewarming on Saturday."): one event time per memory.
        if score >= min_info or (score > 0 and not groups) or (own_time and timed):
            # Parts that carry nothing but a date of their own ("Emailed the studio yesterday": texting drops the "I")
            # do not lend it to the fact after them when that names another.
            if pending is not None and own_time and _dates(text[pending:start]) and _dates(text[start:end]):
                groups.append((pending, pending + len(text[pending:before].rstrip(",， "))))
                pending = None
            groups.append((start if pending is None else pending, end))
            timed = own_time or (pending is not None and _dates(text[pending:start]))
            pending = None
        elif (
            pending is not None
            and own_time
            and not _CJK.search(text[start:end])
            and _dates(text[pending:start])
            and _dates(text[start:end])
        ):
            # Before any fact, English clauses (each with a subject: _CLAUSE_JOIN) that each name a date of their own
            # ("the cabinets got ripped out on Friday, the plumber is coming Wednesday") are one event each, not one
            # memory dated by the first. Chinese parts are split at every comma: a part may be a bare time (到明年五月).
            groups.append((pending, pending + len(text[pending:before].rstrip(",， "))))
            pending = start  # a stretch of its own, which the parts after it go on
        elif groups and pending is None:
            groups[-1] = (groups[-1][0], end)
            timed = timed or own_time
        elif pending is None:
            pending = start
        before = end
    if groups and pending is not None:
        groups.append((pending, before))  # "The plumber came on Tuesday but he has to come back next Friday"
    if not groups:
        groups = _dated_sentences(text)  # no part says a fact of its own (third person, no 我): one per date
    facts = [piece for start, end in groups for piece in _companions(text[start:end].strip(), min_info, rules)]
    if len(facts) <= 1:
        return [" ".join(text.split())]
    return [" ".join(f.split()) for f in facts]


# A time of day alone ("very early morning 6am", 晚上七点) refines the day said beside it: it names no event of its own.
_CLOCK_ONLY = re.compile(
    r"(?:(?:very\s+)?(?:early|late)\s+)?(?:(?:in\s+the\s+)?(?:morning|afternoon|evening|night)\s*)?(?:at\s+)?"
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?(?:\s+(?:in\s+the\s+)?(?:morning|afternoon|evening|night))?"
    r"|(?:早上|上午|中午|下午|晚上|凌晨|夜里)?[\d一二三四五六七八九十两]{1,3}点(?:半|[\d一二三四五六七八九十]{1,2}分?)?",
    re.I,
)
_REFERENCE = datetime(2025, 1, 15, 12)  # any day: only which words name a time matters here


@lru_cache(maxsize=4096)
def _times(text: str) -> tuple[ExtractedTime, ...]:
    """The time expressions of ``text``, in order (against any day: only which words name a time matters here;
    remembered: a message's sentences, clauses and pieces are read again and again)."""
    return tuple(extract_all(text, _REFERENCE, lean="neutral")) if has_time_words(text) else ()


def _dates(part: str) -> bool:
    """Whether ``part`` names a time of its own: a day, a week, a month … — not a time of day alone."""
    return any(not _CLOCK_ONLY.fullmatch(t.expression.strip()) for t in _times(part))


def several_times(text: str) -> bool:
    """Whether ``text`` names times in two of its sentences or clauses ("体检改到28号了，25号要开会"): a memory has one
    event time, so such a message is split like one that states a changeable fact."""
    timed = 0
    for start, end in _sentences(text):
        sentence = text[start:end]
        timed += sum(_dates(sentence[a:b]) for a, b in _clauses(sentence))
        if timed >= 2:
            return True
    return False


def _scored_parts(text: str) -> list[tuple[Span, int]]:
    """The sentences and clauses of ``text`` with their info scores."""
    parts: list[tuple[Span, int]] = []
    for start, end in _sentences(text):
        sentence = text[start:end]
        first_person = sentence.lstrip().startswith("我")
        for c_start, c_end in _clauses(sentence):
            clause = sentence[c_start:c_end]
            # A Chinese clause without a subject goes on with the sentence's 我 ("养了两只猫" is 我养了两只猫).
            inherits = first_person and c_start > 0 and _CJK.match(clause) and not _ZH_SUBJECT.match(clause)
            parts.append(((start + c_start, start + c_end), info_score(f"我{clause}" if inherits else clause)))
    return parts


def _dated_sentences(text: str) -> list[Span]:
    """``text``'s sentences, a sentence naming a date of its own starting a group when the group before it names
    one too ("王阿姨把房子卖了 新房东…说明年要涨房租。合同…到明年五月。": two dates, two facts); ``[]`` when
    fewer than two groups come of it. One event time per memory, for a message no part of which scores as a fact."""
    groups = _by_dates(text, _sentences(text))
    if len(groups) > 1 or len(_times(text)) < 2:
        return groups if len(groups) > 1 else []
    # else by clauses: 今天提的离职，最后一天是十二月二十七号 is two events in one sentence; a clause that says little
    # but a time is said of the clause before it (合同倒是继续有效，到明年五月)
    units: list[list[int]] = []
    for start, end in _sentences(text):
        for a, b in _clauses(text[start:end]):
            if units and _bare_time(text[start + a : start + b]):
                units[-1][1] = start + b
            else:
                units.append([start + a, start + b])
    groups = _by_dates(text, [(a, b) for a, b in units])
    return groups if len(groups) > 1 else []


def _by_dates(text: str, spans: Iterable[Span]) -> list[Span]:
    """``spans`` of ``text`` (in order) joined into stretches with one date each: a span naming a date of its own
    starts a stretch when the one before it names a date too, and any other joins the stretch before it. Two
    stretches or more exactly when two spans or more name dates."""
    groups: list[list[int]] = []  # [start, end, dated]
    for start, end in spans:
        dated = _dates(text[start:end]) and not _moved_only(text[start:end])
        if groups and not (dated and groups[-1][2]):
            groups[-1][1], groups[-1][2] = end, groups[-1][2] or dated
        else:
            groups.append([start, end, dated])
    return [(a, b) for a, b, _ in groups]


def _bare_time(part: str) -> bool:
    """Whether ``part`` says little but a time (到明年五月, 是周二, "till May"): it is said of the part before it."""
    rest = part
    for found in _times(part):
        rest = rest.replace(found.expression, " ")
    return len(_CJK.findall(rest)) < 3 and len(re.findall(r"[A-Za-z]{3,}", rest)) < 2


# A piece that moves a plan without naming it ("physio's off Thursday, they moved me to Monday", "…，又改到周五了"):
# its pronoun or its missing subject is the plan named before, and so is its new time.
_MOVES_WHAT_CAME_BEFORE = re.compile(
    rf"\s*(?:(?:and|but|so|then)\s+)?(?:they|he|she|it|we|i|you|that|this)\b|\s*(?:又|就|已经|然后|结果)?(?:被)?"
    rf"{ZH_MOVE_VERBS}",
    re.I,
)


def _moved_only(piece: str) -> bool:
    """Whether ``piece`` moves the plan the words before it named to a new time, naming no plan of its own."""
    return bool(moved_to(piece)) and _MOVES_WHAT_CAME_BEFORE.match(piece) is not None


def _sentences(text: str) -> list[Span]:
    spans: list[Span] = []
    start = 0
    for end in _SENTENCE_END.finditer(text):
        piece = text[start : end.start()]
        last = piece.rsplit(None, 1)[-1].rstrip(".").lower() if piece.split() else ""
        if piece.endswith(".") and (last in _ABBREVIATIONS or len(last) == 1):
            continue  # "Dr. Rossi", "J. Smith": not the end of a sentence
        spans.append((start, end.start()))
        start = end.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _clauses(sentence: str) -> list[Span]:
    joins = _ZH_CLAUSE_JOIN if _CJK.search(sentence) else _CLAUSE_JOIN
    spans: list[Span] = []
    start = 0
    for join in joins.finditer(sentence):
        spans.append((start, join.start()))
        start = join.end()
    spans.append((start, len(sentence)))
    return [piece for a, b in spans if sentence[a:b].strip() for piece in _timed_pieces(sentence, a, b)]


# Where a clause may be cut between two times: its commas, and the words that join one doing to the next ("went
# climbing Sunday and then bouldering yesterday", "the interview went great on Monday and they want me back Friday").
_JOIN = re.compile(r",\s+|\s+(?:and\s+then|and|but|then|plus)\s+", re.I)


def _timed_pieces(sentence: str, start: int, end: int) -> list[Span]:
    """The clause ``sentence[start:end]`` cut at its commas and joining words where each side names a time of its own
    ("I told my manager on Thursday, my last day there is March 19, and I start on the 31st" is three times, three
    facts: a memory has one event time, and the date of each is in its own words); whole when it names one time or
    none."""
    joins = {m.end(): m.start() for m in _JOIN.finditer(sentence, start, end)}
    if not joins:
        return [(start, end)]
    inside = _time_spans(sentence[start:end])  # "my exam is in March, the 14th": one date, no cut in it
    begin, finish = {a + start for a, _ in inside}, {b + start for _, b in inside}
    cuts = [start]
    for cut, join in joins.items():
        if any(a < cut - start < b for a, b in inside):
            continue
        if join in finish and cut in begin and sentence[join] != ",":
            continue  # "tuesday and thursday 6pm": a list of times, not a doing after another
        cuts.append(cut)
    cuts.append(end)
    groups = _by_dates(sentence, pairwise(cuts))
    merged: list[Span] = []
    for a, b in groups:  # a piece that is only more times of the one before lists them: "kids with me Mon, Wed and …"
        if merged and _only_times(sentence[a:b]):
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    if len(merged) < 2:
        return [(start, end)]
    return [(a, joins.get(b, b)) for a, b in merged]


# Words that, with times, make up a list of times and nothing else ("Wed and every other weekend", "mostly Mon/Wed/Fri")
_TIME_LIST_WORDS = frozenset(
    " ".join(
        (
            "and or mostly usually every other each only just then also plus the a on at from to till until weekend",
            "weekends weekday weekdays morning mornings afternoon afternoons evening evenings night nights am pm mon",
            "tue tues wed weds thu thur thurs fri sat sun monday tuesday wednesday thursday friday saturday sunday",
            "mondays tuesdays wednesdays thursdays fridays saturdays sundays 和 或 还有 每周",
        )
    ).split()
)


def _only_times(piece: str) -> bool:
    """Whether ``piece`` says nothing but times (see _TIME_LIST_WORDS): more of the list before it, no fact of its
    own."""
    rest = piece
    for a, b in sorted(_time_spans(piece), reverse=True):
        rest = rest[:a] + " " + rest[b:]
    words = re.findall(r"[a-z]+|[\u4e00-\u9fff]+", rest.lower())
    return all(w in _TIME_LIST_WORDS for w in words)


def _time_spans(clause: str) -> list[Span]:
    """Where ``clause``'s time expressions are (by their words: one expression may cross a comma)."""
    return [span for span in expression_spans(clause, _times(clause)) if span[0] >= 0]


def _companions(clause: str, min_info: int, rules: SlotRules) -> list[str]:
    """``clause``, or the single-valued fact in it and the named companion said with it, apart.

    "I live in Milan with my dog Rex" → "I live in Milan", "my dog Rex"; 我和我的狗旺财住在米兰 → 我住在米兰,
    我的狗旺财.
    Only a companion that is a fact itself (a name: "my dog Rex", not "my parents") is split off.
    """
    for match in rules.find(clause):
        companion = _COMPANION.search(clause, match.end) or _ZH_COMPANION.search(clause, match.start, match.end)
        if companion is None:
            continue
        who = companion.group("who").strip()
        if info_score(who) < (2 if _CJK.match(who) else max(min_info, 3)):
            continue
        return [f"{clause[: companion.start()]}{clause[companion.end() :]}".strip(), who]
    return [clause]
