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
does not ("It's tiny.") stays with the fact before it, so no word is dropped; before the first fact, a
part that says nothing of the user ("Great news!") joins it, and a first-person one stands alone. A
message with one fact comes back whole.
"""

from __future__ import annotations

import re

from flowmem.scoring.info import info_score
from flowmem.scoring.slots import DEFAULT_RULES, SlotRules

_ABBREVIATIONS = {"dr", "mr", "mrs", "ms", "st", "mt", "jr", "sr", "vs", "etc", "e.g", "i.e", "approx", "no"}
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|(?<=[;。！？；])\s*|\n+")
_SUBJECT = r"(?:i|i'm|i've|i'll|i'd|we|we're|we've|we'll|we'd)\b"
# "my sister lives …", "our cat just had …": a possessive subject counts only with a verb close behind it,
# so "with Tom and my sister" stays one clause.
_OTHER_SUBJECT = (
    r"(?:(?:my|our|his|her|their)\s+(?:\w+\s+){1,2}|(?:he|she|they)\s+)"
    r"(?:is|are|was|were|has|have|had|will|can|just|also|\w+ed|\w+s)\b"
)
_CLAUSE_JOIN = re.compile(
    rf"(?:,?\s+(?:and|but|plus)\s+|,\s+)(?={_SUBJECT}|{_OTHER_SUBJECT})"
    r"|(?:，|,)\s*(?=(?:因为|所以|但是?|可是|不过|而且|其实)?(?:我|他|她))",
    re.I,
)
_COMPANION = re.compile(r",?\s+with\s+(?P<who>(?:my|our)\s+[^,.;!?，。！？；]+)", re.I)


def split_facts(text: str, *, min_info: int = 2, rules: SlotRules = DEFAULT_RULES) -> list[str]:
    """The facts ``text`` states, each in its own words; ``[text]`` (spaces collapsed) when it states one or none.

    Args:
        text: A message.
        min_info: The info score a part needs to be a fact of its own.
        rules: The single-valued facts whose named companions are split off.
    """
    text = " ".join(text.split()) if "\n" not in text else text.strip()
    parts = [p for sentence in _sentences(text) for p in _clauses(sentence)]
    facts: list[str] = []
    pending: list[str] = []  # parts that carry nothing ("Great news!") before the first fact
    for part in parts:
        score = info_score(part)
        if score >= min_info or (score > 0 and not facts):  # a leading statement never joins the fact after it
            pieces = _companions(part, min_info, rules)
            facts.extend(pieces)
            if pending:
                facts[-len(pieces)] = " ".join([*pending, facts[-len(pieces)]])
                pending = []
        elif facts:
            facts[-1] = f"{facts[-1]} {part}"
        else:
            pending.append(part)
    whole = " ".join(text.split())
    if len(facts) <= 1:
        return [whole]
    return [" ".join(f.split()) for f in facts]


def _sentences(text: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(text):
        piece = text[start : end.start()]
        last = piece.rsplit(None, 1)[-1].rstrip(".").lower() if piece.split() else ""
        if piece.endswith(".") and (last in _ABBREVIATIONS or len(last) == 1):
            continue  # "Dr. Rossi", "J. Smith": not the end of a sentence
        sentences.append(piece)
        start = end.end()
    sentences.append(text[start:])
    return [s.strip() for s in sentences if s.strip()]


def _clauses(sentence: str) -> list[str]:
    clauses: list[str] = []
    start = 0
    for join in _CLAUSE_JOIN.finditer(sentence):
        clauses.append(sentence[start : join.start()])
        start = join.end()
    clauses.append(sentence[start:])
    return [c.strip() for c in clauses if c.strip()]


def _companions(clause: str, min_info: int, rules: SlotRules) -> list[str]:
    """``clause``, or the single-valued fact in it and the named companion that followed its value."""
    for match in rules.find(clause):
        companion = _COMPANION.search(clause, match.end)
        if companion is None or info_score(companion.group("who")) < max(min_info, 3):
            continue  # only a companion with a name ("my dog Rex") is a fact of its own
        rest = clause[companion.end() :]
        return [f"{clause[: companion.start()]}{rest}".strip(), companion.group("who").strip()]
    return [clause]
