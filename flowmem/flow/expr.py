"""Flow expressions: ``a_op >> (b_op | c_op >> d_op) >> e_op``.

``>>`` runs its sides in sequence, ``|`` runs them in parallel, parentheses group. As in Python,
``>>`` binds tighter than ``|``, so ``a >> b | c`` is ``(a >> b) | c``. The text is parsed with
:mod:`ast` (never ``eval``) and only names, ``>>``, ``|`` and parentheses are accepted; any other
construct is a :class:`~flowmem.core.errors.FlowSyntaxError` pointing at its column. Python's leniencies
are refused too: a ``#`` (Python would drop the rest as a comment) and op names Python would
normalise (``ｓｅｔ_query_op`` in full-width letters reads as ``set_query_op``).

A name may also be another configured flow's: the parser does not tell them apart;
:mod:`flowmem.flow.include` expands included flows before a flow is checked.

Limits, checked before parsing so that no text can exhaust the parser's stack: at most
:data:`MAX_LENGTH` characters, :data:`MAX_OPS` op occurrences (and as many operators), and
parentheses nested at most :data:`MAX_DEPTH` deep. Real flows have a handful of ops.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from flowmem.core.errors import FlowSyntaxError

MAX_LENGTH = 20_000
MAX_OPS = 500
MAX_DEPTH = 50

# Names, and the operator-like runs between them; only used to bound what the parser is given.
_NAME = re.compile(r"[^\W\d]\w*")
_OPERATOR = re.compile(r">>|[^\w\s()]")


@dataclass(frozen=True)
class OpRef:
    """An op name in a flow expression; ``column`` is its 0-based character offset.

    ``via`` is empty for an op written in the flow itself; for an op of an included flow it names the
    flows it came through (``("personal_recall",)``), and ``column`` is then in the last one's text.
    """

    name: str
    column: int = field(default=0, compare=False)
    via: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Sequence:
    """Steps run one after another (``>>``). Always two or more; nested sequences are flattened."""

    steps: tuple[Node, ...]


@dataclass(frozen=True)
class Parallel:
    """Branches run concurrently (``|``). Always two or more; nested parallels are flattened."""

    branches: tuple[Node, ...]


Node = OpRef | Sequence | Parallel


def parse_flow(text: str, *, where: str = "flow expression") -> Node:
    """Parse a flow expression.

    Args:
        text: The expression. Newlines and tabs count as spaces.
        where: What the expression is, for messages (e.g. ``flow 'personal_retrieve'``).

    Raises:
        FlowSyntaxError: With the column of the first problem and a caret under it.
    """
    if not isinstance(text, str):
        raise FlowSyntaxError(repr(text), 0, f"a flow expression is text, got {type(text).__name__}", where)
    src = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
    indent = len(src) - len(src.lstrip())
    body = src.strip()
    if not body:
        raise FlowSyntaxError(src, 0, "empty flow expression: write op names joined by >> and |", where)
    if len(src) > MAX_LENGTH:
        raise FlowSyntaxError(src[:80] + "…", 0, f"flow expression longer than {MAX_LENGTH} characters", where)
    if "\x00" in body:
        raise FlowSyntaxError(src.replace("\x00", "?"), src.index("\x00"), "NUL character in flow expression", where)
    _check_size(src, where)
    if "#" in body:  # Python would read the rest as a comment: `a >> b # >> c` would silently drop c
        message = "'#' is not allowed: a flow expression has no comments (put notes in the flow's description)"
        raise FlowSyntaxError(src, src.index("#"), message, where)
    try:
        tree = ast.parse(body, mode="eval")
    except SyntaxError as exc:
        column, message = _syntax_problem(exc, body, indent)
        raise FlowSyntaxError(src, indent + column, message, where) from None
    except (RecursionError, MemoryError):
        # Only under an already deep call stack: the limits above keep ordinary callers far from it.
        raise FlowSyntaxError(src, 0, "flow expression too complex to parse here", where) from None
    return _Converter(body, indent, src, where).convert(tree.body)


def _check_size(src: str, where: str) -> None:
    """Refuse expressions beyond the documented limits, pointing at where the limit is passed."""
    names = list(_NAME.finditer(src))
    if len(names) > MAX_OPS:
        message = f"flow expression has {len(names)} op names; at most {MAX_OPS} are allowed"
        raise FlowSyntaxError(src, names[MAX_OPS].start(), message, where)
    operators = list(_OPERATOR.finditer(src))
    if len(operators) > MAX_OPS:
        message = f"flow expression has {len(operators)} operators; at most {MAX_OPS} are allowed"
        raise FlowSyntaxError(src, operators[MAX_OPS].start(), message, where)
    depth = 0
    for column, char in enumerate(src):
        if char == "(":
            depth += 1
            if depth > MAX_DEPTH:
                message = f"parentheses nested more than {MAX_DEPTH} deep"
                raise FlowSyntaxError(src, column, message, where)
        elif char == ")":
            depth -= 1


def format_flow(node: Node) -> str:
    """The canonical text of a flow expression; ``parse_flow(format_flow(n)) == n``."""
    if isinstance(node, OpRef):
        return node.name
    if isinstance(node, Sequence):
        return " >> ".join(f"({format_flow(s)})" if isinstance(s, Parallel) else format_flow(s) for s in node.steps)
    return " | ".join(f"({format_flow(b)})" if isinstance(b, Sequence) else format_flow(b) for b in node.branches)


def op_refs(node: Node) -> Iterator[OpRef]:
    """Every op occurrence, in the order it appears in the text."""
    if isinstance(node, OpRef):
        yield node
    else:
        for child in node.steps if isinstance(node, Sequence) else node.branches:
            yield from op_refs(child)


class _Converter:
    """Turns a Python expression AST into flow nodes, rejecting everything else."""

    def __init__(self, body: str, indent: int, src: str, where: str):
        self._body_bytes = body.encode("utf-8")
        self._indent = indent
        self._src = src
        self._where = where

    def convert(self, node: ast.expr) -> Node:
        if isinstance(node, ast.Name):
            written = self._text(node)
            if written != node.id:  # Python reads `ｓｅｔ_op` or `ﬁnd_op` as `set_op`, `find_op` (NFKC)
                message = f"op name '{written}' is not written in plain characters: write '{node.id}'"
                raise self._error(node, message)
            return OpRef(node.id, self._column(node))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.RShift, ast.BitOr)):
            kind = type(node.op)
            # Walk the left spine iteratively: long chains `a >> b >> c >> …` nest to the left.
            operands: list[ast.expr] = []
            current: ast.expr = node
            while isinstance(current, ast.BinOp) and isinstance(current.op, kind):
                operands.append(current.right)
                current = current.left
            operands.append(current)
            parts: list[Node] = []
            for operand in reversed(operands):
                converted = self.convert(operand)
                parts.extend(_children_if(converted, Sequence if kind is ast.RShift else Parallel))
            return Sequence(tuple(parts)) if kind is ast.RShift else Parallel(tuple(parts))
        raise self._error(node, _describe_unsupported(node))

    def _text(self, node: ast.expr) -> str:
        end = node.end_col_offset if node.end_col_offset is not None else len(self._body_bytes)
        return self._body_bytes[node.col_offset : end].decode("utf-8", errors="replace")

    def _column(self, node: ast.expr) -> int:
        # ast gives UTF-8 byte offsets; messages need character offsets.
        return self._indent + len(self._body_bytes[: node.col_offset].decode("utf-8", errors="ignore"))

    def _error(self, node: ast.expr, message: str) -> FlowSyntaxError:
        return FlowSyntaxError(self._src, self._column(node), message, self._where)


def _children_if(node: Node, kind: type[Sequence] | type[Parallel]) -> tuple[Node, ...]:
    if kind is Sequence and isinstance(node, Sequence):
        return node.steps
    if kind is Parallel and isinstance(node, Parallel):
        return node.branches
    return (node,)


_OPERATORS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.BitAnd: "&",
    ast.BitXor: "^",
    ast.MatMult: "@",
}


def _describe_unsupported(node: ast.expr) -> str:
    if isinstance(node, ast.BinOp):
        symbol = _OPERATORS.get(type(node.op), type(node.op).__name__)
        return f"unsupported operator '{symbol}': use >> for sequence and | for parallel"
    if isinstance(node, ast.Constant):
        return f"expected an op name, found the value {node.value!r}"
    if isinstance(node, ast.Call):
        return "ops are not called: write the op name alone and set params with op.<name>.params.<param>=value"
    if isinstance(node, ast.Attribute):
        return "op names contain no dots"
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return "expected op names joined by >> and |, found a collection"
    return f"expected an op name, >> or |, found {type(node).__name__.lower()} syntax"


def _syntax_problem(exc: SyntaxError, body: str, indent: int) -> tuple[int, str]:
    """The 0-based column and a message for a Python syntax error in a flow expression."""
    unclosed = _unclosed_paren(body)
    stripped = body.rstrip()
    if stripped.endswith((">>", "|")):
        operator = ">>" if stripped.endswith(">>") else "|"
        message = f"expected an op name after '{operator}'"
        if unclosed is not None:
            message += f", and ')' to close the '(' at column {indent + unclosed + 1}"
        return len(stripped), message
    # SyntaxError.offset counts characters from 1 for str sources; 0 or past the end means "at the end".
    offset = exc.offset or 0
    column = len(body) if exc.lineno not in (None, 1) or offset <= 0 or offset > len(body) else offset - 1
    message = (exc.msg or "invalid syntax").split(". Perhaps")[0]
    if message.startswith("Exceeds the limit"):  # Python's cap on int literals: not an op name either way
        long_number = re.search(r"\d{100,}", body)
        return (long_number.start() if long_number else column), "expected an op name, found a number"
    if message.startswith("invalid syntax"):
        message = "invalid flow syntax: expected op names joined by >> and |, grouped by parentheses"
    return column, message


def _unclosed_paren(body: str) -> int | None:
    open_columns: list[int] = []
    for i, char in enumerate(body):
        if char == "(":
            open_columns.append(i)
        elif char == ")" and open_columns:
            open_columns.pop()
    return open_columns[0] if open_columns else None
