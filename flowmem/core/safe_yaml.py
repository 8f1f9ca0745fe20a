"""The one way flowmem reads YAML: config files, presets, ``key=value`` overrides and ``--input`` values.

:func:`safe_load` is ``yaml.safe_load`` with limits, so that a few hundred bytes cannot cost
seconds, gigabytes or a traceback:

- **Aliases** (``*a``) may stand for at most :data:`MAX_ALIAS_NODES` nodes in all. An alias is
  cheap to parse but every later step (interpolation, validation, printing) copies what it stands
  for, so nine nested lists of nine aliases ("billion laughs") would become 9⁹ values. A
  recursive alias (a list that contains itself) is refused.
- **Nesting** is at most :data:`MAX_DEPTH` levels, aliases expanded (deeper YAML overflows the
  composer's stack, and that of every step after it).
- **Values that do not exist** — ``2024-13-45`` as a date, an integer of more than 4,300 digits
  (Python's limit on converting text to int) — are errors that say so.

Every refusal is a :class:`yaml.YAMLError` with the line and column, like a syntax error, so
callers handle both the same way.
"""

from __future__ import annotations

import sys
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_ALIAS_NODES = 10_000
MAX_DEPTH = 100
_TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep"
_INT_TAG = "tag:yaml.org,2002:int"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class _LimitedLoader(yaml.SafeLoader):
    """A ``SafeLoader`` that counts what aliases expand to and how deep nodes nest."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._shapes: dict[int, tuple[int, int]] = {}  # id(node) → (values it stands for, height), once composed
        self._alias_nodes = 0
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            target = self.anchors.get(event.anchor) if event.anchor is not None else None
            if target is not None:
                shape = self._shapes.get(id(target))
                if shape is None:  # the anchored node is still being composed: it would contain itself
                    raise ComposerError(None, None, f"alias *{event.anchor} refers to itself", event.start_mark)
                self._alias_nodes += shape[0]
                if self._alias_nodes > MAX_ALIAS_NODES:
                    raise ComposerError(
                        None,
                        None,
                        f"aliases expand to more than {MAX_ALIAS_NODES:,} values; write the values out "
                        "or use fewer aliases",
                        event.start_mark,
                    )
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise ComposerError(None, None, _TOO_DEEP, self.peek_event().start_mark)  # type: ignore[no-untyped-call]
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node is None:
            return None
        shape = self._shapes[id(node)] = _shape(node, self._shapes)
        if shape[1] > MAX_DEPTH:  # aliases nested in aliases can stack deeper than the text is
            raise ComposerError(None, None, _TOO_DEEP, node.start_mark)
        return node

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:
            raise ConstructorError(None, None, _unreadable(node, exc), node.start_mark) from None


def _shape(node: Node, shapes: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """How many values ``node`` stands for once its aliases are expanded, and how deep they nest."""
    if isinstance(node, SequenceNode):
        children = list(node.value)
    elif isinstance(node, MappingNode):
        children = [part for pair in node.value for part in pair]
    else:
        return 1, 1
    known = [shapes.get(id(child), (1, 1)) for child in children]
    return 1 + sum(size for size, _ in known), 1 + max((height for _, height in known), default=0)


def _unreadable(node: Node, exc: Exception) -> str:
    text = str(node.value) if isinstance(node, ScalarNode) else node.tag
    shown = repr(text if len(text) <= 40 else text[:40] + "…")
    if node.tag == _TIMESTAMP_TAG:
        return f"{shown} is not a valid date ({exc}); write YYYY-MM-DD or YYYY-MM-DD HH:MM:SS"
    if node.tag == _INT_TAG and "Exceeds the limit" in str(exc):
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
