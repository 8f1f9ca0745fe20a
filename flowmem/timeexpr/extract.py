"""Offline, rule-based extraction of time expressions (English and Chinese) relative to a reference time.

Pipeline: the keyword gate (:mod:`flowmem.timeexpr.gate`) → every rule of the text's languages
(:mod:`flowmem.timeexpr.en`, :mod:`flowmem.timeexpr.zh`, :mod:`flowmem.timeexpr.common`) → the
longest non-overlapping matches → neighbours merged ("last week" + "Friday", 昨天 + 下午三点)
(:mod:`flowmem.timeexpr.compose`) → dateparser for the numeric dates no rule read
(:mod:`flowmem.timeexpr.fallback`). A query costs a few dozen microseconds; dateparser runs only
for ``05/06/2023``-style dates.

Tense: a bare name ("on Saturday", "the 28th", "in June", 周六, "Christmas") is the occurrence the
tense points to (:mod:`flowmem.timeexpr.pick`). By default it is read from the words of the clause
the expression stands in (:mod:`flowmem.timeexpr.tense`) and neutral wording leans past, as people
ask a memory about what happened; messages pass ``lean="neutral"`` (the coming occurrence of a near
name, else the nearer), and a caller that knows the tense passes ``tense``.

Language: ``None`` detects it (CJK characters → Chinese, plus English when there are Latin
letters too; else English); ``"en"``/``"zh"`` restricts the rules to that language. The
readings of ambiguous expressions are documented in :mod:`flowmem.timeexpr.en` and
:mod:`flowmem.timeexpr.zh`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Literal

from flowmem.schema.timeparts import wall_clock
from flowmem.timeexpr import common, en, fallback, holiday_rules, period_parts, ranges, zh
from flowmem.timeexpr.calendar import Span
from flowmem.timeexpr.compose import compose, select
from flowmem.timeexpr.gate import has_time_words
from flowmem.timeexpr.mention import DIGIT, Context, Mention, Rule, WeeksAhead
from flowmem.timeexpr.model import ExtractedTime, canonical_parts
from flowmem.timeexpr.numerals import normalize_width
from flowmem.timeexpr.tense import Tense, TenseReader
from flowmem.timeexpr.texting import digit_words

Language = Literal["en", "zh"]

_WORD = re.compile(r"[a-z]+")
_DIGIT = re.compile(r"\d")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_EN_RULES = en.RULES + holiday_rules.EN_RULES + ranges.EN_RULES
_ZH_RULES = zh.RULES + holiday_rules.ZH_RULES + ranges.ZH_RULES
_RULES: dict[tuple[Language, ...], tuple[Rule, ...]] = {
    ("en",): common.RULES + _EN_RULES,
    ("zh",): common.RULES + _ZH_RULES,
    ("zh", "en"): common.RULES + _ZH_RULES + _EN_RULES,
}
_CONNECTORS: dict[tuple[Language, ...], re.Pattern[str]] = {
    ("en",): re.compile(en.CONNECTOR, re.IGNORECASE),
    ("zh",): re.compile(zh.CONNECTOR),
    ("zh", "en"): re.compile(rf"(?:{en.CONNECTOR}|{zh.CONNECTOR})*", re.IGNORECASE),
}
_RANGE_JOINTS: dict[tuple[Language, ...], re.Pattern[str]] = {
    ("en",): re.compile(ranges.EN_JOINT, re.IGNORECASE),
    ("zh",): re.compile(ranges.ZH_JOINT),
    ("zh", "en"): re.compile(rf"{ranges.EN_JOINT}|{ranges.ZH_JOINT}", re.IGNORECASE),
}


def extract_time(
    text: str,
    now: datetime,
    language: Language | None = None,
    *,
    tense: Tense | None = None,
    lean: Tense = "past",
    weeks_ahead: WeeksAhead = "week",
) -> ExtractedTime | None:
    """The first time expression in ``text``, resolved against ``now``; ``None`` when there is none.

    Args:
        text: A query or a chat message.
        now: The reference time ("yesterday" is the day before it); an aware datetime keeps its
            wall-clock time.
        language: ``"en"``, ``"zh"``, or ``None`` to detect it (a mixed text tries both).
        tense: ``"past"``, ``"future"`` or ``"neutral"`` for every bare name, or ``None`` to read
            it from the words around each one.
        lean: What neutral wording means: ``"past"`` (queries), ``"neutral"`` (messages: the coming
            occurrence of a near name, else the nearer; :mod:`flowmem.timeexpr.pick`) or ``"future"``.
        weeks_ahead: How a count of weeks ahead reads ("in two weeks", 两周后): ``"week"``, the ISO
            week it falls in (queries ask about a period), or ``"day"``, the day that many weeks on
            (messages state when an event is). Counts back stay weeks; see
            :func:`flowmem.timeexpr.mention.weeks_from_today`.

    Returns:
        The first expression in text order, with its parts, range and granularity.
    """
    found = extract_all(text, now, language, tense=tense, lean=lean, weeks_ahead=weeks_ahead)
    return found[0] if found else None


def extract_all(
    text: str,
    now: datetime,
    language: Language | None = None,
    *,
    tense: Tense | None = None,
    lean: Tense = "past",
    weeks_ahead: WeeksAhead = "week",
) -> list[ExtractedTime]:
    """Every time expression in ``text``, in text order (a message may mention several).

    Args:
        text: A query or a chat message.
        now: The reference time.
        language: ``"en"``, ``"zh"``, or ``None`` to detect it.
        tense: The tense of every bare name, or ``None`` to read it (see :func:`extract_time`).
        lean: What neutral wording means (see :func:`extract_time`).
        weeks_ahead: How a count of weeks ahead reads (see :func:`extract_time`).

    Returns:
        The expressions found; empty when the text has no time words.
    """
    if not text or not has_time_words(text, language):
        return []
    reference = wall_clock(now)
    normalized = normalize_width(text)
    languages = _languages(normalized, language)
    found = _find(normalized, reference, languages, TenseReader(normalized, tense, lean), weeks_ahead)
    return [
        ExtractedTime(
            parts=canonical_parts(span.granularity, span.start, span.end),
            start=span.start,
            end=span.end,
            expression=text[start:end],
            granularity=span.granularity,
        )
        for start, end, span in found
    ]


def expression_spans(text: str, found: Sequence[ExtractedTime]) -> list[tuple[int, int]]:
    """Where each of ``found`` (:func:`extract_all`'s times of ``text``, in text order) stands in ``text``: each is
    looked for after the one before (an expression said twice is placed at each saying); ``(-1, -1)`` for one not
    found as written."""
    spans: list[tuple[int, int]] = []
    after = 0
    for time in found:
        at = text.find(time.expression, after)
        spans.append((at, at + len(time.expression)) if at >= 0 else (-1, -1))
        after = at + len(time.expression) if at >= 0 else after
    return spans


def _languages(text: str, language: Language | None) -> tuple[Language, ...]:
    if language is not None:
        return (language,)
    if _CJK.search(text) is None:
        return ("en",)
    return ("zh", "en") if _LATIN.search(text) else ("zh",)


def _find(
    text: str,
    now: datetime,
    languages: tuple[Language, ...],
    tense: TenseReader | None = None,
    weeks_ahead: WeeksAhead = "week",
) -> list[tuple[int, int, Span]]:
    """``(start, end, span)`` of every expression, ungated (the gate is checked by the caller)."""
    tense = tense if tense is not None else TenseReader(text, None, "past")
    ctx = Context(text=text, now=now, today=now.date(), tense=tense, weeks_ahead=weeks_ahead)
    mentions: list[Mention] = []
    words = trigger_words(text)
    for rule in _RULES[languages]:
        if rule.triggers is not None and rule.triggers.isdisjoint(words):
            continue
        for match in rule.pattern.finditer(text):
            try:
                mention = rule.build(match, ctx)
            except (ValueError, OverflowError):
                mention = None  # no such date (30 February) or out of the calendar's range
            if mention is not None:
                mentions.append(_with_preposition(mention, text, languages))
    composed = compose(select(mentions), text, _CONNECTORS[languages], ctx.today, tense, _RANGE_JOINTS[languages])
    found = period_parts.narrow(text, [(m.start, m.end, span) for m, span in composed], now, languages)
    for match in fallback.CANDIDATE.finditer(text) if DIGIT in words else ():
        if any(match.start() < end and start < match.end() for start, end, _ in found):
            continue
        span = fallback.parse_date(match.group(), now, languages[0])
        if span is not None:
            found.append((match.start(), match.end(), span))
    found.sort(key=lambda item: item[0])
    return found


def trigger_words(text: str) -> set[str]:
    """The lowercase ASCII words of ``text`` (texting's "2moro" too), plus :data:`~flowmem.timeexpr.mention.DIGIT`
    if it has a digit."""
    lowered = text.lower()
    words = {*_WORD.findall(lowered), *digit_words(lowered)}
    if _DIGIT.search(text):
        words.add(DIGIT)
    return words


def _with_preposition(mention: Mention, text: str, languages: tuple[Language, ...]) -> Mention:
    if "en" not in languages:
        return mention
    start = en.extend_start(text, mention.start)
    return mention if start == mention.start else replace(mention, start=start)
