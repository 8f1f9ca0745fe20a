"""Single-valued facts ("slots") a person has one of at a time: where they live, where they work, what they eat.

The offline write path uses them to notice a contradiction: "I live in Oakland" then "we just moved
to Berkeley" fill the ``residence`` slot twice with different values, so the newer replaces the
older. Only these few, common slots are known; anything else is left to near-duplicate detection
(or to the LLM policy).
"""

from __future__ import annotations

import re

_VALUE = r"(?P<v>[^.,!?;:\n，。！？；]{2,60})"
_SLOTS: dict[str, list[re.Pattern[str]]] = {
    "residence": [
        re.compile(rf"\b(?:i|we)\s+(?:now\s+|still\s+|currently\s+)?live\s+(?:in|at|near)\s+{_VALUE}", re.I),
        re.compile(rf"\b(?:i|we)\s+(?:just\s+|recently\s+|finally\s+)?moved\s+(?:to|into)\s+{_VALUE}", re.I),
        re.compile(rf"\b(?:i|we)(?:'re|'m|\s+are|\s+am)\s+(?:now\s+)?(?:living|based)\s+in\s+{_VALUE}", re.I),
        re.compile(r"我们?(?:现在|目前)?住在(?P<v>[^，。！？；,.!?;]{1,20})"),
        re.compile(r"我们?(?:刚|已经)?搬(?:到|去)了?(?P<v>[^，。！？；,.!?;]{1,20})"),
    ],
    "employer": [
        re.compile(rf"\bi\s+(?:now\s+|still\s+)?work\s+(?:at|for)\s+{_VALUE}", re.I),
        re.compile(
            rf"\bi(?:'ve|\s+have)?\s+(?:just\s+)?(?:started|joined)\s+(?:a\s+new\s+job\s+)?(?:at|with)\s+{_VALUE}", re.I
        ),
        re.compile(r"我(?:现在)?在(?P<v>[^，。！？；,.!?;]{1,20}?)(?:工作|上班)"),
    ],
    "diet": [
        re.compile(r"\bi(?:'m|\s+am)\s+(?:a\s+|now\s+|still\s+)?(?P<v>vegetarian|vegan|pescatarian)\b", re.I),
        re.compile(
            r"\bi(?:'ve|\s+have)?\s+(?:decided\s+to\s+)?(?:start(?:ed)?\s+|begun\s+)?eat(?:ing)?\s+"
            r"(?P<v>fish|meat|chicken)\s+again\b",
            re.I,
        ),
        re.compile(r"我(?:现在)?(?:是|吃)(?P<v>素|全素|纯素)"),
    ],
}


def slot_of(text: str) -> tuple[str, str] | None:
    """``(slot, value)`` of the first single-valued fact ``text`` states, or ``None``."""
    for slot, patterns in _SLOTS.items():
        for pattern in patterns:
            match = pattern.search(text)
            if match:
                value = " ".join(match.group("v").split()).strip().lower()
                return slot, _trim(value)
    return None


def _trim(value: str) -> str:
    # "berkeley last week with sam" → "berkeley": a place or name ends where a time or a companion begins.
    value = re.split(r"\s+(?:last|this|next|since|with|and|because|for|as|in\s+\d)\b", value, maxsplit=1)[0]
    return value.rstrip("了啦呢吧")


def contradicts(old: str, new: str) -> str | None:
    """The slot two texts fill with different values (the newer replaces the older), else ``None``."""
    a, b = slot_of(old), slot_of(new)
    if a is None or b is None or a[0] != b[0] or a[1] == b[1]:
        return None
    return a[0]
