"""Chinese chat written with English words in it: 我现在 based 在上海, major 是 Statistics, relocate 去 Singapore.

People who chat in Chinese mix in English words for the things the slot table reads by their Chinese words (where
one lives, a major, a partner, a company). Before the Chinese slot patterns read such a text, the English words of a
small bilingual table become their Chinese words and the spaces around them go (a space between two scripts is
typography, not a word break): 我现在住在上海, 专业是 Statistics → 专业是Statistics. Only a text that has Chinese
characters is rewritten, and only whole English words; names and values (Statistics, Singapore) are left as written.
"""

from __future__ import annotations

import re

# The English words Chinese chat borrows for what a slot is about, and the Chinese word the patterns read.
LOANWORDS: dict[str, str] = {
    "based": "住", "live": "住", "living": "住", "relocate": "搬", "relocated": "搬", "move": "搬", "moved": "搬",
    "major": "专业", "girlfriend": "女朋友", "boyfriend": "男朋友", "gf": "女朋友", "bf": "男朋友",
    "husband": "老公", "wife": "老婆", "company": "公司", "intern": "实习生", "manager": "经理",
    "school": "学校", "university": "大学", "college": "大学",
}  # fmt: skip
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(rf"\s*\b(?P<w>{'|'.join(sorted(LOANWORDS, key=len, reverse=True))})\b\s*", re.IGNORECASE)
_BETWEEN_SCRIPTS = re.compile(r"(?<=[\u4e00-\u9fff])\s+(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])\s+(?=[\u4e00-\u9fff])")


def unmixed(text: str) -> str:
    """``text`` with its borrowed English words in Chinese and no spaces between the scripts, when it has Chinese
    characters; else ``text`` as it is."""
    if not _CJK.search(text):
        return text
    return _BETWEEN_SCRIPTS.sub("", _WORD.sub(lambda m: LOANWORDS[m.group("w").lower()], text))
