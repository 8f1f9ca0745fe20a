"""Flow expressions: parsing, printing, errors with columns, and properties over arbitrary text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowmem.core.errors import FlowSyntaxError
from flowmem.flow.expr import MAX_DEPTH, MAX_OPS, OpRef, Parallel, Sequence, format_flow, op_refs, parse_flow

PERSONAL = "set_query_op >> (extract_time_op | (retrieve_memory_op >> semantic_rank_op)) >> fuse_rerank_op"


def test_parses_the_personal_retrieve_flow() -> None:
    node = parse_flow(PERSONAL)
    assert node == Sequence(
        (
            OpRef("set_query_op"),
            Parallel((OpRef("extract_time_op"), Sequence((OpRef("retrieve_memory_op"), OpRef("semantic_rank_op"))))),
            OpRef("fuse_rerank_op"),
        )
    )
    assert format_flow(node) == PERSONAL


def test_rshift_binds_tighter_than_bar() -> None:
    assert parse_flow("a >> b | c") == Parallel((Sequence((OpRef("a"), OpRef("b"))), OpRef("c")))


def test_nested_groups_flatten() -> None:
    assert parse_flow("a >> (b >> c)") == parse_flow("a >> b >> c")
    assert parse_flow("(a | b) | c") == Parallel((OpRef("a"), OpRef("b"), OpRef("c")))
    assert parse_flow("((a))") == OpRef("a")


def test_op_refs_keep_order_columns_and_duplicates() -> None:
    refs = list(op_refs(parse_flow("a >> (b | a)")))
    assert [(r.name, r.column) for r in refs] == [("a", 0), ("b", 6), ("a", 10)]


def test_multiline_text_counts_newlines_as_spaces() -> None:
    assert parse_flow("a >>\n  b") == parse_flow("a >> b")


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("a_op >> (b_op |", 15, "expected an op name after '|'"),
        ("a >>", 4, "expected an op name after '>>'"),
        ("a + b", 0, "unsupported operator '+'"),
        ("a >> b(x=1)", 5, "ops are not called"),
        ("a >> 1", 5, "found the value 1"),
        ("a >> b.c", 5, "no dots"),
        ("a b", 2, "invalid flow syntax"),
        ("  a >> 2", 7, "found the value 2"),
        ("é >> 'x'", 5, "found the value 'x'"),
        ("(a >> b", 0, "never closed"),
        ("", 0, "empty flow expression"),
    ],
)
def test_syntax_errors_point_at_the_column(text: str, column: int, fragment: str) -> None:
    with pytest.raises(FlowSyntaxError) as info:
        parse_flow(text)
    assert info.value.column == column
    assert fragment in str(info.value)
    caret_line = str(info.value).splitlines()[-1]
    assert caret_line.index("^") - 4 == column  # the caret sits under the column


def test_unclosed_paren_is_named_with_its_column() -> None:
    with pytest.raises(FlowSyntaxError, match=r"close the '\(' at column 9"):
        parse_flow("a_op >> (b_op |")


def test_very_long_chains_parse_or_fail_cleanly() -> None:
    assert len(parse_flow(" >> ".join(["a"] * MAX_OPS)).steps) == MAX_OPS  # type: ignore[union-attr]
    with pytest.raises(FlowSyntaxError):
        parse_flow("(" * 500 + "a" + ")" * 500)
    with pytest.raises(FlowSyntaxError, match="longer than"):
        parse_flow("a >> " * 5000 + "a")


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        (">>".join(["a"] * 5000), 1500, "flow expression has 5000 op names; at most 500 are allowed"),
        ("a|" * 700 + "a", 1000, "flow expression has 701 op names; at most 500 are allowed"),
        ("~" * 3000 + "a", 500, "flow expression has 3000 operators; at most 500 are allowed"),
        ("(" * 3000 + "a" + ")" * 3000, 50, "parentheses nested more than 50 deep"),
        ("(" * 51 + "a" + ")" * 51, 50, "parentheses nested more than 50 deep"),
        ("a >> " + "1" * 5000, 5, "expected an op name, found a number"),
    ],
)
def test_documented_limits_are_refused_before_parsing(text: str, column: int, fragment: str) -> None:
    with pytest.raises(FlowSyntaxError) as info:
        parse_flow(text)
    assert info.value.column == column
    message = str(info.value)
    assert fragment in message
    assert "RecursionError" not in message and "set_int_max_str_digits" not in message
    assert len(message) < 400  # the caret line shows a window around the column, not the whole text
    text_line, caret_line = message.splitlines()[-2:]
    assert text_line[caret_line.index("^")] == text[column]


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("set_query_op # >> retrieve_memory_op", 13, "'#' is not allowed: a flow expression has no comments"),
        ("a >> (b | c)  # why", 14, "has no comments"),
        ("a >>\n# b\n c", 5, "has no comments"),
        ("#a", 0, "has no comments"),
        (
            "ｓｅｔ_query_op >> b",
            0,
            "op name 'ｓｅｔ_query_op' is not written in plain characters: write 'set_query_op'",
        ),
        ("a >> ﬁnd_op", 5, "op name 'ﬁnd_op' is not written in plain characters: write 'find_op'"),
    ],
)
def test_what_python_would_silently_accept_is_refused(text: str, column: int, fragment: str) -> None:
    with pytest.raises(FlowSyntaxError) as info:
        parse_flow(text)
    assert info.value.column == column
    assert fragment in str(info.value)
    caret_line = str(info.value).splitlines()[-1]
    assert caret_line.index("^") - 4 == column


def test_non_ascii_op_names_in_plain_form_are_fine() -> None:
    assert parse_flow("é_op >> b") == Sequence((OpRef("é_op"), OpRef("b")))


def test_at_the_limits_flows_parse() -> None:
    assert parse_flow("(" * MAX_DEPTH + "a" + ")" * MAX_DEPTH) == OpRef("a")
    deep = "a"
    for _ in range(MAX_DEPTH):
        deep = f"b >> ({deep} | c)"
    assert len(list(op_refs(parse_flow(deep)))) == 2 * MAX_DEPTH + 1


# -- properties ------------------------------------------------------------------------------

names = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True).filter(
    lambda n: (
        n
        not in {
            "and",
            "or",
            "not",
            "in",
            "is",
            "if",
            "else",
            "for",
            "lambda",
            "None",
            "True",
            "False",
            "del",
            "def",
            "class",
            "from",
            "with",
            "as",
            "try",
            "while",
            "yield",
            "await",
            "async",
            "return",
            "pass",
            "break",
            "continue",
            "raise",
            "global",
            "nonlocal",
            "import",
            "assert",
            "elif",
            "except",
            "finally",
        }
    )
)


def trees(max_leaves: int = 12) -> st.SearchStrategy:
    return st.recursive(
        names.map(OpRef),
        lambda children: st.one_of(
            st.lists(children, min_size=2, max_size=4).map(lambda xs: Sequence(tuple(xs))),
            st.lists(children, min_size=2, max_size=4).map(lambda xs: Parallel(tuple(xs))),
        ),
        max_leaves=max_leaves,
    )


def normalise(node: object) -> object:
    """What the parser makes of a tree: nested sequences/parallels flattened."""
    if isinstance(node, OpRef):
        return node
    kind = type(node)
    parts: list[object] = []
    children = node.steps if isinstance(node, Sequence) else node.branches  # type: ignore[attr-defined]
    for child in children:
        child = normalise(child)
        parts.extend(
            child.steps
            if kind is Sequence and isinstance(child, Sequence)
            else child.branches
            if kind is Parallel and isinstance(child, Parallel)
            else (child,)
        )
    return kind(tuple(parts))


@given(st.text(max_size=200))
@settings(max_examples=400)
def test_parser_raises_only_its_own_error_on_arbitrary_text(text: str) -> None:
    try:
        parse_flow(text)
    except FlowSyntaxError as exc:
        assert 0 <= exc.column <= len(exc.text)


@given(st.text(alphabet="ab_ >>|()\n\t1.+,=", max_size=60))
@settings(max_examples=400)
def test_parser_on_flow_like_noise(text: str) -> None:
    try:
        node = parse_flow(text)
    except FlowSyntaxError:
        return
    assert parse_flow(format_flow(node)) == node


@given(trees())
def test_print_then_parse_round_trips(tree: object) -> None:
    expected = normalise(tree)
    text = format_flow(expected)  # type: ignore[arg-type]
    assert parse_flow(text) == expected
    assert format_flow(parse_flow(text)) == text
