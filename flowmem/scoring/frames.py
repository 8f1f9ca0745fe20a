"""A slot stated in other words: another name in the same words as a slot's value.

The slot patterns (:mod:`flowmem.scoring.slots`) know how a fact is usually stated, so "first day at Lumen Health
tomorrow!" fills ``employer``; "Long day at Brightwell Insurance again", said weeks before, matches none of them
and would stay current. But it holds another *name* in the *same words* the new value follows ("day at"): in a
person's own chat the same frame before a different name is the same relation with an older value. So when a new
memory fills a slot with a name, an older memory of the same speaker that holds a different name right after the
same two words, said of the same person, is read as stating that slot with its name (:func:`analogous_slots`).

Why it holds beyond the wordings it was tried on: it needs no list of phrasings — the frame is whatever words the
slot pattern matched before the value, and the older statement is matched by those words alone. It is kept narrow
so it does not turn every repeated preposition into a contradiction: the new value must be a name (capitalised,
so English and other Latin-script text only) and so must the old one; the frame must hold a word that is not a
function word ("day at", "moved to", "work for" — never "at the"); neither statement may say it of someone else
(:func:`flowmem.scoring.change.subject_before`); and only the slots of the speaker themselves take part, not what
they say of their people (``residence@nana``). Chinese has no capitals to mark a name, and is not read this way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from flowmem.scoring.change import subject_before
from flowmem.scoring.values import Value, find_values
from flowmem.timeexpr.clauses import CLAUSE_BREAK

FRAME_WORDS = 2
_WORD = re.compile(r"[\w'’-]+")
# Words that alone say nothing of the relation: a frame of only these ("at the", "in my") is no frame.
_FUNCTION = frozenset(
    " ".join(
        (
            "a an the my our your his her their its this that at in on to for of with from by into onto and or",
            "i we me us is am are was were be been it's i'm we're there here so",
        )
    ).split()
)


def _clause_start(text: str, offset: int) -> int:
    starts = [match.end() for match in CLAUSE_BREAK.finditer(text, 0, offset)]
    return starts[-1] if starts else 0


def _frame(text: str, value: Value) -> tuple[str, ...] | None:
    """The :data:`FRAME_WORDS` words right before ``value`` in its clause of ``text`` (lower case), when they hold a
    word that is not a function word and the clause does not say it of someone else; None otherwise."""
    start = _clause_start(text, value.start)
    frame = tuple(word.casefold() for word in _WORD.findall(text[start : value.start])[-FRAME_WORDS:])
    if len(frame) < FRAME_WORDS or all(word in _FUNCTION for word in frame):
        return None
    return None if subject_before(text, start, value) == "other" else frame


def frame_of(text: str, value: str) -> tuple[str, ...] | None:
    """The frame (:func:`_frame`) of ``value`` (lower case, spaces collapsed) in ``text``, when the value is written
    there as a name (capitalised); None otherwise."""
    found = next((v for v in find_values(text) if v.kind == "name" and v.norm == value), None)
    return None if found is None else _frame(text, found)


# Chinese has no capitals, but says where one works by 在 X 做/干/搞 Y (我在华为做硬件) as often as by 在 X 上班.
# 做 alone is also what one does somewhere (在健身房做有氧: a workout), so the table does not read it; an older
# statement of that shape is read as the employer only when a newer one names another employer, and not when X is
# named by a generic head of a place one goes to (健身房, 体育馆, 广场, 公园, 家里, 餐厅).
ZH_WORK_FRAME: tuple[str, ...] = ("在", "做")
_ZH_WORKS_AT = re.compile(
    r"我(?:一直|现在|之前|以前|目前)?在(?:一家|一个)?(?P<v>[^，。！？；,.!?;\s]{2,12}?)(?<![房馆场园家里边厅])"
    r"(?:做|干|搞)(?!饭|菜|作业|运动)"
)


def slot_frames(text: str, slots: Mapping[str, str]) -> dict[str, tuple[tuple[str, ...], str]]:
    """``{slot: (frame, value)}`` of the speaker's own slots of ``text`` whose value is a name with a frame (or, in
    Chinese, an employer: :data:`ZH_WORK_FRAME`): what :func:`analogous_slots` compares older statements with (read
    once per new memory)."""
    found: dict[str, tuple[tuple[str, ...], str]] = {}
    for slot, value in slots.items():
        if slot == "employer" and not value.isascii():
            found[slot] = (ZH_WORK_FRAME, value)
            continue
        frame = frame_of(text, value) if "@" not in slot else None
        if frame is not None:
            found[slot] = (frame, value)
    return found


def analogous_slots(
    frames: Mapping[str, tuple[tuple[str, ...], str]], old_text: str, old_slots: Mapping[str, str]
) -> dict[str, str]:
    """The slots ``old_text`` states by holding another name after the words of one of ``frames`` (a new memory's
    :func:`slot_frames`): ``{"employer": "brightwell insurance"}``; the slots ``old_slots`` already holds are left
    as they are."""
    wanted = {slot: framed for slot, framed in frames.items() if slot not in old_slots}
    if not wanted:
        return {}
    names = [v for v in find_values(old_text) if v.kind == "name"]
    found: dict[str, str] = {}
    for slot, (frame, value) in wanted.items():
        if frame == ZH_WORK_FRAME:
            works = _ZH_WORKS_AT.search(old_text)
            if works is not None and works.group("v") != value:
                found[slot] = works.group("v")
            continue
        other = next((n for n in names if n.norm != value and _frame(old_text, n) == frame), None)
        if other is not None:
            found[slot] = other.norm
    return found
