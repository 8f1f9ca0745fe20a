"""The one tokeniser of flowmem's lexical search, and the one stop list.

Every store indexes the text :func:`tokens` makes, joined by single spaces, with an analyser
that only splits on whitespace (SQLite FTS5 ``unicode61`` sees nothing but letters and digits
between the spaces; Elasticsearch uses its ``whitespace`` analyser), and every lexical query
goes through :func:`query_terms`. So all stores see exactly the same terms, and Chinese works
everywhere: left to themselves FTS5 reads a run of Chinese as one token and Elasticsearch's
``standard`` analyser as single characters only.

Tokens: lower-cased runs of letters and digits; a run of Han, Hiragana or Katakana (scripts
written without spaces) gives each character *and* each overlapping pair of characters
(``北京大学`` → 北 京 大 学 北京 京大 大学) — the usual CJK indexing of search engines (CJK
bigrams): characters find single-character words, pairs rank a multi-character word above its
characters met apart.
"""

from __future__ import annotations

import re

# Scripts written without spaces between words: Han (with extension A and compatibility
# ideographs), Hiragana and Katakana. Hangul is written with spaces, so it is read as words.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUN = re.compile(rf"[{_CJK}]+|(?:(?![{_CJK}])[^\W_])+")
_CJK_RUN = re.compile(rf"[{_CJK}]+")

# Function words left out of queries (never out of the index: a stop word costs nothing there,
# and the list can change without re-indexing). English: articles, pronouns, auxiliaries,
# prepositions and question words — the words of "where do I live?" that are not "live".
_EN = (
    "a an the and or but if of to in on at by for with about from as into over after before is are was were be been "
    "being am do does did doing have has had having i me my mine myself we us our ours you your yours he him his "
    "she her hers it its they them their theirs what which who whom whose when where why how this that these those "
    "there here not no so than too very can could will would should shall may might must just also any some all "
    "each both more most other such only own same s t d ll m re ve don now then again once up down out off ever"
)
# Chinese: pronouns, particles, copula, common prepositions and question words, as characters and words
# (the tokeniser yields both). A content character such as 住 or 京 is never here.
_ZH = (
    "的 了 着 过 是 在 我 你 他 她 它 们 吗 呢 吧 啊 呀 么 和 与 及 也 都 就 还 又 这 那 哪 谁 什 怎 几 "
    "个 把 被 给 对 从 向 很 有 没 不 "
    "我们 你们 他们 她们 它们 什么 怎么 怎样 哪里 哪儿 哪个 哪些 那里 这里 这个 那个 这些 那些 为什 多少 "
    "在哪 是不 不是 没有 有没 一下 请问"
)
STOP_WORDS = frozenset(_EN.split()) | frozenset(_ZH.split())


def tokens(text: str) -> list[str]:
    """The indexed terms of ``text``, in order (duplicates kept: term frequency counts).

    Examples:
        >>> tokens("Caroline's new job at Acme-Labs")
        ['caroline', 's', 'new', 'job', 'at', 'acme', 'labs']
        >>> tokens("我住在北京")
        ['我', '住', '在', '北', '京', '我住', '住在', '在北', '北京']
    """
    out: list[str] = []
    for run in _RUN.findall(text.lower()):
        if _CJK_RUN.fullmatch(run):
            out.extend(run)
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            out.append(run)
    return out


def index_text(text: str) -> str:
    """``text`` as every store indexes it: :func:`tokens` joined by single spaces."""
    return " ".join(tokens(text))


def query_terms(text: str) -> list[str]:
    """The distinct terms of a lexical query, stop words left out, in order of first appearance.

    Distinct: every store scores a term once however often the query repeats it. A pair of
    Chinese characters that are both stop words (是什, 我的) is one too. A query of nothing but
    stop words has no terms (and finds nothing).
    """
    return [term for term in dict.fromkeys(tokens(text)) if not _stop(term)]


def _stop(term: str) -> bool:
    if term in STOP_WORDS:
        return True
    return len(term) == 2 and _CJK_RUN.fullmatch(term) is not None and all(c in STOP_WORDS for c in term)
