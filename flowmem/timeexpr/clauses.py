"""Where the clause holding a time expression begins and ends.

A message may join clauses of different tenses ("I told my manager, my last day is March 19";
跟经理说了，最后一天是3月19号), so the tense of a date is read from its own clause
(:mod:`flowmem.timeexpr.tense`). Two kinds of boundary delimit the text read:

- **clause** boundaries — a new clause with its own verb begins: the end of a sentence, ";",
  "but", ", and", a subordinator, complementizer or relative pronoun ("because", "when", "while",
  "although", "if", "that", "which", "who", …; 因为, 所以, 但是, 虽然, 如果, 然后, "…的时候"), and a
  Chinese verb of saying (他说, 说过, 告诉我), which opens reported speech without a "that".
- **segment** boundaries — the clause boundaries plus what parts clauses and phrases alike: commas,
  colons, dashes, brackets, "and", "or" (，、：). A segment is a clause ("my last day there is March
  19") or a fragment of one ("On Friday", "and Bob on Friday").

"so" is no boundary of its own ("so much fun"): as a conjunction it follows a comma. "that" before a
time word is a determiner ("that Friday"), not a complementizer. Chinese 和 joins nouns far more often
than clauses (我和小李吃了火锅), so it is no boundary either.
"""

from __future__ import annotations

import re

_TIME_WORD = (
    r"(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|day|night|week|month|year"
    r"|morning|afternoon|evening|time|summer|winter|spring|fall|autumn)"
)
# A title's dot ("Mrs. Lund", "Dr. Okafor", "St. Anselm's") ends no sentence: the name goes on.
_TITLE_DOT = r"(?<!\bmr)(?<!\bmrs)(?<!\bms)(?<!\bdr)(?<!\bst)(?<!\bprof)(?<!\bjr)(?<!\bsr)\."
_CLAUSE = (
    rf"{_TITLE_DOT}|[!?;。！？；\n]|,\s*and\b"
    r"|\b(?:but|whereas|because|when|whenever|while|although|though|unless|if|where|which|who|whom|whose)\b"
    rf"|\bthat\b(?!\s+{_TIME_WORD})"
    r"|但是|不过|可是|因为|所以|虽然|如果|然后|而且|的时候"
    r"|(?<!小)说[了过]*(?![明服话法])|告诉[了过]*(?:我们|你们|他们|她们|我|你|他|她)?"  # aspect markers: 说过了
)
CLAUSE_BREAK = re.compile(_CLAUSE, re.IGNORECASE)
"""Where a clause ends and the next begins."""
# "and"/"but" before a subject of its own with its verb: "my mum lives in Bath and my dad lives in Bristol", "Jess works
# at the BBC and her boyfriend is a chef" — not "my partner and I" (one subject of two), not "Tom and my sister went"
# (no verb of the present or a regular past after the noun: the tense reader keeps its clauses).
_AND_SUBJECT = (
    r"\b(?:and|but)\s+(?=(?:he|she|they)\s+\w+|(?:my|our|his|her|their)\s+(?:[\w-]+\s+){1,3}"
    r"(?:is|are|was|were|has|have|had|will|can|just|also|\w+ed|\w+s)\b)"
)
FACT_BREAK = re.compile(rf"{_CLAUSE}|{_AND_SUBJECT}", re.IGNORECASE)
"""Where a clause ends and the next begins, and where "and" joins a clause with a subject of its own: the parts of
a statement one fact of which may change while the others hold."""
SEGMENT_BREAK = re.compile(rf"{_CLAUSE}|[,:()\u2014\u2013\"，、：（）]|\s-\s|\b(?:and|or)\b", re.IGNORECASE)
"""Where a clause or a fragment of one ends."""


def around(text: str, offset: int, breaks: re.Pattern[str]) -> tuple[int, int]:
    """``[start, end)`` of the stretch of ``text`` between the ``breaks`` on either side of ``offset``."""
    start, end = 0, len(text)
    for match in breaks.finditer(text):
        if match.end() <= offset:
            start = match.end()
        elif match.start() >= offset:
            end = match.start()
            break
    return start, end
