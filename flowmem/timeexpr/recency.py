"""Whether a query asks for the latest (or the earliest) time something happened: "when did I last go hiking?",
"the first time I met Marcus", 我上次献血是什么时候.

It is a closed class of function words and constructions, read by structure, never by what the query is about:

- "last" / "first" as an adverb between the subject (or the auxiliary and its subject) and the verb: "did I last
  go", "I first met", "when did Eli last score", "was I last at";
- "(the) last time" / "(the) first time", and "the last / first / latest / newest / earliest / most recent
  <noun> (that) I …" with a relative clause ("the last book I read", "the latest thing we bought");
- the adverbs "most recently", "recently", "lately";
- Chinese 上次, 上一次, 上回, 最近一次, 最后一次, 最近 (not "nearest", 最近的 + noun), 最新; 第一次, 头一次,
  首次, 最早, 最初.

An adjective of a noun is not the operator, its word is part of what is asked about: "my last day at Dell", "the last
train home", "their latest project" (a memory may say "our latest project"), "the earliest flight"; nor "at last",
"at the latest" (a deadline), and "last week" / "last Christmas", which are time expressions (the rules of
:mod:`flowmem.timeexpr` find them, and a match inside one is not the operator).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Order = Literal["latest", "earliest"]
_I = re.IGNORECASE

_SUBJECT = r"(?:i|you|we|he|she|they)"
_AUX = r"(?:did|do|does|was|were|is|are|have|has|had)"
# Before an adjective "last": a determiner or preposition ("my last day", "the last train", "at last").
_DETERMINER = r"(?:the|a|an|my|your|his|her|its|our|their|this|that|these|those|at|on|in|of|for|to|very)"
# After a "last" that is no adverb: a time unit ("last week", a time expression), a number or quantity ("they last
# two hours" — the verb), "long" ("did it last long"), "of".
_NOT_A_VERB = (
    r"(?:week|weeks|weekend|month|months|year|years|night|nights|day|days|morning|evening|afternoon|summer|winter"
    r"|spring|fall|autumn|season|semester|term|quarter|time|times|monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday|january|february|march|april|may|june|july|august|september|october|november|december|long|longer"
    r"|of|one|ones|few|couple|two|three|four|five|six|seven|eight|nine|ten|\d+|but|and|or)"
)
# "at the latest", "at the earliest": a deadline, not an order.
_NO_DEADLINE = r"(?<!\bat\s)"
_ADVERB_TAIL = rf"\s+(?!{_NOT_A_VERB}\b)[a-z]"
_ENGLISH: tuple[tuple[re.Pattern[str], Order | None], ...] = (
    # "the last time I …", "for the first time": the words "last time" / "first time" go.
    (re.compile(r"\b(?:the\s+)?(?:very\s+)?(?P<op>(?P<w>last|first)\s+time)\b(?!s)", _I), None),
    # "I last saw", "we first met".
    (re.compile(rf"\b{_SUBJECT}\s+(?P<op>(?P<w>last|first))(?={_ADVERB_TAIL})", _I), None),
    # "did I last go", "when did Eli last score", "has my sister last …": an auxiliary, one to three words of its
    # subject (the last of them no determiner), then the adverb.
    (
        re.compile(
            rf"\b{_AUX}(?:\s+[\w'’]+){{0,2}}\s+(?!{_DETERMINER}\b)[\w'’]+\s+(?P<op>(?P<w>last|first))(?={_ADVERB_TAIL})",
            _I,
        ),
        None,
    ),
    # "the last book I read", "the latest thing we bought", "the first concert we went to": a relative clause says
    # it is the last of the speaker's own (an adjective alone is not: "my latest project", "the earliest flight").
    (
        re.compile(
            rf"{_NO_DEADLINE}\bthe\s+(?P<op>(?P<w>last|first|latest|newest|earliest|most\s+recent))"
            rf"(?=(?:\s+[a-z]+){{1,2}}\s+(?:that\s+)?{_SUBJECT}\b)",
            _I,
        ),
        None,
    ),
    # The adverbs: "what did I do most recently?", "have I been to the gym recently?", "lately".
    (re.compile(r"\b(?P<op>most\s+recently|recently|lately)\b", _I), "latest"),
)
_EARLIEST = frozenset({"first", "earliest"})
_CHINESE: tuple[tuple[re.Pattern[str], Order], ...] = (
    (re.compile(r"(?P<op>上一?[次回]|最近的?一[次回]|最[后後]一[次回]|最新|最近(?!的))"), "latest"),
    (re.compile(r"(?P<op>第一[次回]|[头頭]一[次回]|首次|最早|最初)"), "earliest"),
)


@dataclass(frozen=True)
class RecencyAsk:
    """A query's ask for the latest or the earliest occurrence: ``order``, and the operator's ``words`` as written
    at ``[start, end)`` of the query (what word matching leaves out: "last" matches what merely says it)."""

    order: Order
    words: str
    start: int
    end: int

    def without_words(self, text: str) -> str:
        """``text`` with the operator's words blanked out (``text`` must be the text it was found in; the other
        words keep their places)."""
        return f"{text[: self.start]}{' ' * (self.end - self.start)}{text[self.end :]}"


def recency_ask(text: str, time_expressions: Iterable[str] = ()) -> RecencyAsk | None:
    """The first recency operator in ``text``, or ``None``.

    Args:
        text: the query.
        time_expressions: the time expressions found in it (:func:`flowmem.timeexpr.extract_all`'s
            ``expression``\\s): an operator word inside one is part of a time ("the last weekend of March").
    """
    inside = [_span(text, expression) for expression in time_expressions]
    found: list[tuple[int, int, Order]] = []
    for pattern, fixed in _ENGLISH:
        for match in pattern.finditer(text):
            word = (match.groupdict().get("w") or "").lower()
            order: Order = fixed or ("earliest" if word in _EARLIEST else "latest")
            found.append((match.start("op"), match.end("op"), order))
    for pattern, order in _CHINESE:
        found += [(match.start("op"), match.end("op"), order) for match in pattern.finditer(text)]
    for start, end, order in sorted(found, key=lambda f: (f[0], -f[1])):  # the longest of those found first
        if not any(s <= start < e or s < end <= e for s, e in inside):
            return RecencyAsk(order, text[start:end], start, end)
    return None


def _span(text: str, expression: str) -> tuple[int, int]:
    match = re.search(re.escape(expression), text, re.IGNORECASE) if expression else None
    return match.span() if match else (0, 0)
