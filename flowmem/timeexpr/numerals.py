"""Numbers as people write them in time expressions: digits, English words, Chinese numerals.

The regex fragments here are shared by the English and Chinese rules so that a rule and the
function that reads its number always agree on what a number looks like.
"""

from __future__ import annotations

import re

_EN_UNITS = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
)  # fmt: skip
_EN_ORDINAL_UNITS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
    "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth",
    "twentieth",
)  # fmt: skip

EN_CARDINALS: dict[str, int] = {word: number for number, word in enumerate(_EN_UNITS, start=1)}
EN_CARDINALS.update({"a": 1, "an": 1, "thirty": 30, "a couple of": 2, "a couple": 2, "couple of": 2})

EN_ORDINALS: dict[str, int] = {word: number for number, word in enumerate(_EN_ORDINAL_UNITS, start=1)}
for _number, _word in enumerate(_EN_ORDINAL_UNITS[:9], start=1):
    EN_ORDINALS[f"twenty-{_word}"] = 20 + _number
    EN_ORDINALS[f"twenty {_word}"] = 20 + _number
EN_ORDINALS.update({"thirtieth": 30, "thirty-first": 31, "thirty first": 31})


def _alternation(words: dict[str, int]) -> str:
    # Longest first, so "a couple of" wins over "a" and "twenty-first" over "first".
    return "|".join(re.escape(word).replace(r"\ ", r"\s+") for word in sorted(words, key=len, reverse=True))


EN_CARDINAL = rf"(?:\d{{1,3}}|{_alternation(EN_CARDINALS)})"
"""An English count: digits or a word ("3", "three", "a", "a couple of")."""

EN_ORDINAL = rf"(?:{_alternation(EN_ORDINALS)})"
"""An English ordinal in words: "fifth", "twenty-first"."""
EN_DAY_OF_MONTH = rf"(?:(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?|{EN_ORDINAL})"
"""A day of the month: "5", "5th", "fifth", "twenty-first"."""

_ZH_DIGITS: dict[str, int] = {
    "零": 0, "〇": 0, "○": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4,
    "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip
_ZH_UNITS: dict[str, int] = {"十": 10, "百": 100, "千": 1000}

ZH_NUMERAL_CHARS = "零〇○一二两兩三四五六七八九十百千"
ZH_COUNT = rf"(?:\d{{1,3}}|[{ZH_NUMERAL_CHARS}]{{1,4}})"
"""A Chinese count: digits or numerals ("3", "三", "两", "二十一")."""

ZH_NOT_AFTER_NUMBER = rf"(?<![\d{ZH_NUMERAL_CHARS}])"
"""Lookbehind keeping a numeral match from starting in the middle of a longer number (十三月 ≠ 三月)."""


def en_number(text: str) -> int | None:
    """The value of an English count or ordinal ("3", "3rd", "three", "a couple of", "fifth")."""
    word = " ".join(text.lower().split())
    digits = word.rstrip("stndrh")
    if digits.isascii() and digits.isdigit():
        return int(digits)
    if word in EN_CARDINALS:
        return EN_CARDINALS[word]
    return EN_ORDINALS.get(word)


def zh_number(text: str) -> int | None:
    """The value of a Chinese numeral or of ASCII digits, or ``None`` when it is neither.

    Reads positional numerals (二十一 = 21, 一百零五 = 105, 十 = 10) and digit-by-digit years
    (二〇二三 = 2023).
    """
    if not text:
        return None
    if text.isascii():
        return int(text) if text.isdigit() else None
    if all(char in _ZH_DIGITS for char in text):
        if len(text) == 1:
            return _ZH_DIGITS[text]
        # Several digits without 十/百/千 are read one by one, as years are (二〇二三).
        return int("".join(str(_ZH_DIGITS[char]) for char in text))
    total, current = 0, 0
    for char in text:
        if char in _ZH_DIGITS:
            current = _ZH_DIGITS[char]
        elif char in _ZH_UNITS:
            # A bare unit counts one of itself: 十五 = 15, 一百 = 百 = 100.
            total += (current or 1) * _ZH_UNITS[char]
            current = 0
        else:
            return None
    return total + current


_FULL_WIDTH = str.maketrans({chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)} | {"\u3000": " "})


def normalize_width(text: str) -> str:
    """Full-width ASCII (１５：００, Ｍａｙ) as ASCII; one character for one, so offsets still hold."""
    return text.translate(_FULL_WIDTH)
