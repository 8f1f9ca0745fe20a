"""Time expressions in queries and messages ("last weekend", "上周三", "at 3pm yesterday").

:func:`extract_time` / :func:`extract_all` are the offline, rule-based path (English and Chinese);
:func:`has_time_words` is the cheap gate in front of them; :class:`ExtractedTime` is the result of
both the rules and the LLM path.
"""

from flowmem.timeexpr.extract import expression_spans, extract_all, extract_time
from flowmem.timeexpr.gate import has_time_words
from flowmem.timeexpr.model import ExtractedTime, canonical_parts

__all__ = ["ExtractedTime", "canonical_parts", "expression_spans", "extract_all", "extract_time", "has_time_words"]
