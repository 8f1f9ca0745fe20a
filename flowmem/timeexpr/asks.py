"""Whether a query asks for a time: "when did Caroline go to the support group?", "what day is my physio?", "how long
ago did we move?", 我弟是哪天高考的？, 什么时候搬的家 — its answer is a memory that says when, not only one that
says what.

Read by structure, a closed class of question words: English "when" (not "whenever"), "what/which + day, date, time,
year, month, week, weekday", "how long ago", "since when", "what time"; Chinese 什么时候, 哪天, 哪一天, 几号, 几月,
哪年, 哪一年, 星期几, 周几, 几点, 多久以前. A "when" that opens a subordinate clause inside a question about something
else ("what did I say when we met?") is not the ask: only one that opens the question (after an optional
"and/so/but") counts.
"""

from __future__ import annotations

import re

_EN = re.compile(
    r"^\s*(?:(?:and|so|but|ok|okay|hey|remind\s+me)[\s,]+)?(?:when\b(?!ever)|since\s+when\b|how\s+long\s+ago\b"
    r"|(?:what|which)\s+(?:day|date|time|year|month|week|weekday|days|dates)\b)",
    re.IGNORECASE,
)
_ZH = re.compile(r"什么时候|啥时候|哪天|哪一天|几号|几月|哪年|哪一年|星期几|周几|礼拜几|几点|多久以前|多久前")


def asks_when(text: str) -> bool:
    """Whether ``text`` asks for the time of something (see the module docstring)."""
    return bool(_EN.search(text) or _ZH.search(text))
