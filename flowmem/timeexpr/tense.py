"""Which way a bare name points: the tense of the words around it.

A bare name ("on Saturday", "the 28th", "in June", 周六, 五月, "Christmas") recurs, so it needs a
direction to become a date. :class:`TenseReader` reads it from the clause the expression stands
in (a message may speak of yesterday and of next week in one breath: "I met Bob yesterday and
will see him on Friday"):

- **future** — plan or future wording: "will", "'ll", "going to", "gonna", "plan to", "want to",
  "can't wait", "looking forward", "booked", "scheduled", "plans", "what's on", a present
  progressive ("we are having dinner on Friday", "what are we doing on Friday?"); 要, 会, 打算,
  准备, 计划, 将, 想, 约了, 预约, 记得.
- **future**, weakly — a present-tense "is"/"are" and no past wording: "my dentist appointment is
  on the 28th" is a schedule (a past one would be told with "was").
- **past** — past wording: "did", "was", "were", "had", "went", "ago", regular past forms ("visited",
  "watched"), common irregular ones ("met", "saw", "took"); 了, 过, 已经, 刚才.
- **neutral** — neither; the caller's ``lean`` decides (queries lean past: people ask a memory
  about what happened; messages lean nowhere: :func:`flowmem.timeexpr.pick.choose` reads neutral as the
  coming occurrence of a near name, else the nearer one).

Future wording wins over past wording in one clause ("I booked the table for Friday").
"""

from __future__ import annotations

import re
from typing import Literal

Tense = Literal["past", "future", "neutral"]
TENSES: tuple[Tense, ...] = ("past", "future", "neutral")

_CLAUSE_BREAK = re.compile(r"[.!?;。！？；\n]|,\s*(?:and|but)\b|\b(?:but|whereas)\b|但是|不过|可是", re.IGNORECASE)
_END = ".!?。！？ \n"
# English is read word by word (sets, not one large regex: a clause costs a few µs, not a dozen).
_EN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_EN_FUTURE_WORDS = frozenset(
    {"will", "won't", "shall", "gonna", "wanna", "upcoming", "tomorrow", "soon", "booked", "scheduled", "reserved",
     "planned", "invited", "let's", "plans", "happening", "agenda", "what's"}
)  # fmt: skip
_EN_FUTURE_PAIRS = frozenset(
    {("going", "to"), ("plan", "to"), ("planning", "to"), ("plans", "to"), ("want", "to"), ("wants", "to"),
     ("hope", "to"), ("hoping", "to"), ("about", "to"), ("need", "to"), ("have", "to"), ("has", "to"),
     ("can't", "wait"), ("cannot", "wait"), ("looking", "forward"), ("coming", "up"), ("remind", "me"),
     ("don't", "forget"), ("is", "due"), ("are", "due")}
)  # fmt: skip
_EN_BE = frozenset({"am", "is", "are", "i'm", "we're", "you're", "they're", "he's", "she's", "it's"})
_EN_PAST_WORDS = frozenset(
    {"did", "didn't", "was", "wasn't", "were", "weren't", "had", "went", "ago", "yesterday", "earlier", "already",
     "met", "saw", "took", "got", "came", "ate", "made", "bought", "gave", "told", "said", "left", "ran", "drove",
     "flew", "spent", "found", "felt", "began", "won", "lost", "heard", "wrote", "sent", "caught", "brought",
     "slept", "paid", "wore", "kept", "sang", "swam", "rode", "fell", "broke", "forgot", "taught", "thought",
     "sold", "threw", "drank", "knew"}
)  # fmt: skip
# Adjectives in -ed say nothing about when: "excited about Saturday", "tired on Monday".
_EN_NOT_PAST = frozenset(
    {"excited", "interested", "tired", "bored", "scared", "worried", "supposed", "based", "related", "red",
     "married", "engaged", "used", "pleased", "thrilled", "nervous", "stressed", "exhausted", "delighted",
     "embed", "shed", "hundred", "need", "feed", "speed", "bed", "seed", "indeed", "breed", "proceed", "succeed",
     "sacred", "naked", "wicked", "beloved", "advanced", "detailed", "limited"}
)  # fmt: skip
# 会 and 要 also sit inside other words: 开会 (a meeting), 董事会, 会议, 重要 (important), 主要 (main).
_ZH_FUTURE = re.compile(
    r"(?<![重主只])要|(?<![开例晚聚宴舞集大社机约事员工协学体误运都])会(?!议|議)|打算|准备|计划|将要|将会|想去|想要|约了|约好|预约|预定|预订|记得|别忘|到时候|届时|即将"
)
_ZH_PAST = re.compile(r"了|过|已经|刚才|刚刚|曾经|那天")


def clause_tense(clause: str) -> Tense:
    """The tense of one clause from its words alone: future wording wins, then past, else neutral."""
    chinese = not clause.isascii()
    if chinese and _ZH_FUTURE.search(clause):
        return "future"
    words = _EN_WORD.findall(clause.lower().replace("’", "'"))
    past = False
    for index, word in enumerate(words):
        if word in _EN_FUTURE_WORDS or word.endswith("'ll"):
            return "future"
        following = words[index + 1 : index + 3]
        if following and (word, following[0]) in _EN_FUTURE_PAIRS:
            return "future"
        if word in _EN_BE and any(len(w) > 4 and w.endswith("ing") for w in following):
            return "future"  # a present progressive of a plan: "we are having dinner", "are we doing"
        if not past and (
            word in _EN_PAST_WORDS or (word.endswith("ed") and len(word) > 3 and word not in _EN_NOT_PAST)
        ):
            past = True
    if past or (chinese and _ZH_PAST.search(clause)):
        return "past"
    if any(word in _EN_BE for word in words):
        return "future"  # "my appointment is on the 28th": what is over is told with "was"
    return "neutral"


class TenseReader:
    """The tense at any offset of a text: fixed, or read from the clause there (cached per clause).

    Args:
        text: The whole text.
        tense: A fixed tense for every expression, or ``None`` to read it from the words.
        lean: What neutral wording means (``"past"`` for queries, ``"neutral"`` for messages).
    """

    __slots__ = ("_cache", "_lean", "_tense", "_text")

    def __init__(self, text: str, tense: Tense | None, lean: Tense) -> None:
        self._text, self._tense, self._lean = text, tense, lean
        self._cache: dict[tuple[int, int], Tense] = {}

    def at(self, offset: int) -> Tense:
        """The tense that applies to an expression starting at ``offset``."""
        if self._tense is not None:
            return self._tense
        start, end = _clause_around(self._text, offset)
        found = self._cache.get((start, end))
        if found is None:
            found = clause_tense(self._text[start:end])
            self._cache[(start, end)] = found
        return self._lean if found == "neutral" else found


def _clause_around(text: str, offset: int) -> tuple[int, int]:
    end = len(text.rstrip(_END))
    if _CLAUSE_BREAK.search(text, 0, end) is None:
        return 0, end  # one clause (most questions): no need to walk the breaks
    start = 0
    for match in _CLAUSE_BREAK.finditer(text):
        if match.end() <= offset:
            start = match.end()
        elif match.start() >= offset:
            return start, match.start()
    return start, len(text)
