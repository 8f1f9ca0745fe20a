"""What kind of place or body a name names, read from the name's own words — and where it stands in its sentence.

"im in the flat on Dunmore rd" and "new place is on Ashby Lane" name two streets; "working at Lionsgate Credit"
and "new job at Orchid Insurance" two companies; "based at the Fenwick Road office" and "at the new Quayside hub"
two workplaces. Neither pair shares a word around its name (flat/place, working/job, office/hub), but each name
says by its own head word what it is: English names streets, companies, schools and sites with a closed class of
generic words (*Lane*, *Rd*; *Insurance*, *Ltd*; *Primary*, *College*; *office*, *branch*, *hub*), in the name or
right after it. Two names of one kind, after the same preposition ("on" a street, "at" a company), hold the same
place in what their statements say, so a newer one said as a change replaces the older (:mod:`flowmem.scoring.change`).
The classes are the generic words of place and organisation names, not anyone's phrasings: any "… Lane" is a
street.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flowmem.scoring.values import Value

_KIND_WORDS: dict[str, str] = {
    "street": "street st road rd lane ln avenue ave drive dr boulevard blvd way close crescent court ct terrace "
    "row highway hwy square sq parkway pkwy alley grove gardens mews",
    "organisation": "inc ltd llc plc co corp corporation company group bank insurance credit analytics logistics "
    "labs lab systems solutions technologies technology partners capital consulting consultants media foods "
    "holdings motors airlines airways agency associates software games pharma pharmaceuticals energy industries "
    "enterprises ventures health healthcare financial finance services",
    "school": "school primary academy college university uni elementary institute kindergarten nursery preschool "
    "polytechnic",
    "workplace": "office offices hub branch campus site headquarters hq depot warehouse plant factory",
}
KINDS: dict[str, str] = {word: kind for kind, words in _KIND_WORDS.items() for word in words.split()}
# The prepositions that place a name in its statement: "on" a street, "at"/"for" a company, "in" a town.
_PREPOSITIONS = frozenset(["at", "for", "on", "in", "with", "from", "to", "near"])
_WORD = re.compile(r"[A-Za-z][\w'’-]*")


@dataclass(frozen=True)
class NameFrame:
    """Where a name stands: the preposition just before it (within three words; ``None``: none) and the kinds its
    words say it is (empty: its words say nothing — a person, a town, a brand)."""

    preposition: str | None
    kinds: frozenset[str]


def name_frame(text: str, value: Value) -> NameFrame:
    """The frame of the name ``value`` in ``text``: its kinds from its own words and the word right after it
    ("Dunmore rd", "Quayside hub"), and the preposition among the three words before it ("on", "at the new")."""
    # The head of a name is after its first word ("Maple Grove Primary", "Ashby Lane"); a first word is its own
    # ("St Anselm's" is a saint's, "Grove Road" a road).
    words = [w.lower().rstrip(".") for w in _WORD.findall(text[value.start : value.end])]
    words = words[1:] if len(words) > 1 else words
    after = _WORD.match(text, _skip_space(text, value.end))
    if after is not None and after.group()[:1].islower():
        words.append(after.group().lower().rstrip("."))
    kinds = frozenset(KINDS[w] for w in words if w in KINDS)
    before = [w.lower() for w in _WORD.findall(text[max(0, value.start - 40) : value.start])][-3:]
    preposition = next((w for w in reversed(before) if w in _PREPOSITIONS), None)
    return NameFrame(preposition, kinds)


# Where one is and where one goes are one place of a statement: "work in the Leeds office", then "transferred me to
# the Manchester office"; "at" a company, then "moved to" another.
_LOCATIVE = {"at": "at", "in": "at", "to": "at", "into": "at"}


def same_place(old: NameFrame, new: NameFrame) -> bool:
    """Whether two names stand in the same place of what their statements say: a kind in common, after the same
    preposition (at, in, to and into are one: being there, or going there)."""
    if old.preposition is None or new.preposition is None:
        return False
    same = _LOCATIVE.get(old.preposition, old.preposition) == _LOCATIVE.get(new.preposition, new.preposition)
    return same and bool(old.kinds & new.kinds)


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] == " ":
        at += 1
    return at
