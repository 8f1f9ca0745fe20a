"""When two memories say the same thing: the one rule the retrieval and write ops share."""

from __future__ import annotations


def content_key(text: str) -> str:
    """``text`` reduced to what "the same content" compares: case-folded, punctuation dropped, whitespace folded.

    "Alice likes tea." and "alice  likes tea" are the same content; "Alice likes green tea" is not.
    Letters and digits of every script count (Chinese characters are kept), so only punctuation,
    case and spacing are ignored.
    """
    return " ".join("".join(c for c in text.casefold() if c.isalnum() or c.isspace()).split())
