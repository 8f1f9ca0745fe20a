"""The one way flowmem reads YAML: config files, presets, ``key=value`` overrides and ``--input`` values.

:func:`safe_load` is ``yaml.safe_load`` with limits, so that a few hundred bytes cannot cost
seconds, gigabytes or a traceback:

- **Values that do not exist** — ``2024-13-45`` as a date, an integer of more than 4,300 digits
  (Python's limit on converting text to int) — are errors that say so.

Every refusal is a :class:`yaml.YAMLError` with the line and column, like a syntax error, so
callers handle both the same way.
"""

from __future__ import annotations

import sys
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import Node, ScalarNode

_INT_TAG = "tag:yaml.org,2002:int"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class _LimitedLoader(yaml.SafeLoader):
    """A ``SafeLoader`` whose values that cannot exist are YAML errors."""

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:
            raise ConstructorError(None, None, _unreadable(node, exc), node.start_mark) from None


def _unreadable(node: Node, exc: Exception) -> str:
    text = str(node.value) if isinstance(node, ScalarNode) else node.tag
    shown = repr(text if len(text) <= 40 else text[:40] + "…")
    if node.tag == _TIMESTAMP_TAG:
        return f"{shown} is not a valid date ({exc}); write YYYY-MM-DD or YYYY-MM-DD HH:MM:SS"
    if node.tag == _INT_TAG:
        digits = getattr(sys, "get_int_max_str_digits", lambda: 4300)()  # the limit came in Python 3.11
        return f"the integer {shown} has {len(text):,} digits; at most {digits:,} are supported"
    return f"{shown} cannot be read as {node.tag.rsplit(':', 1)[-1]}: {exc}"


def safe_load(text: str) -> Any:
    """Parse one YAML document with the limits above.

    Raises:
        yaml.YAMLError: Invalid YAML, or a document beyond a limit (the message says which).
    """
    loader = _LimitedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
