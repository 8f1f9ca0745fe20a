"""The one YAML reader: values that cannot exist are YAML errors with a line and column, never a traceback."""

from __future__ import annotations

import datetime
import itertools
import re

import pytest
import yaml

from flowmem.core.safe_yaml import MAX_ALIAS_NODES, MAX_DEPTH, safe_load


def test_reads_what_safe_load_reads() -> None:
    text = "a: [1, 0.5, true, null, text]\nb: {c: 2024-05-04}\nd: 2024-05-04 10:00:00\n"
    assert safe_load(text) == yaml.safe_load(text)
    assert safe_load("b: 2024-05-04")["b"] == datetime.date(2024, 5, 4)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2024-13-45", "'2024-13-45' is not a valid date (month must be in 1..12)"),
        ("x: {when: 2024-02-30}", "'2024-02-30' is not a valid date (day is out of range for month)"),
        ("2024-01-01 25:00:00", "'2024-01-01 25:00:00' is not a valid date"),
        ("9" * 5000, "has 5,000 digits; at most 4,300 are supported"),
        ("[1, -" + "1" * 4400 + "]", "has 4,401 digits"),
        ("!!int '0x'", "'0x' cannot be read as int: invalid literal"),
        ("!!float x", "'x' cannot be read as float"),
    ],
)
def test_values_that_cannot_exist_are_yaml_errors(text: str, fragment: str) -> None:
    with pytest.raises(yaml.YAMLError) as info:
        safe_load(text)
    message = " ".join(str(info.value).split())
    assert fragment in message
    assert "line 1, column" in message
    assert len(message) < 300  # the value is cut, not printed whole


def laughs(levels: int, width: int = 9) -> str:
    """The "billion laughs": each list holds ``width`` aliases of the one before; 9 levels are 9⁹ values."""
    names = "abcdefghijklmnop"[:levels]
    parts = [f"a: &a [{','.join(['x'] * width)}]"]
    for before, name in itertools.pairwise(names):
        parts.append(f"{name}: &{name} [{','.join(['*' + before] * width)}]")
    return "{" + ", ".join(parts) + "}"


def test_a_few_aliases_are_fine() -> None:
    assert safe_load("base: &b {x: 1, y: [1, 2]}\nother: *b\nmerged: {<<: *b, z: 3}")["merged"] == {
        "x": 1,
        "y": [1, 2],
        "z": 3,
    }
    assert safe_load(laughs(3))["c"] == [[["x"] * 9] * 9] * 9  # 9 + 90 + 819 values


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (laughs(9), "aliases expand to more than 10,000 values"),
        (laughs(5, width=10), "aliases expand to more than 10,000 values"),  # 111,110 values: cheap, still refused
        ("&a [*a]", "alias *a refers to itself"),
        ("a: &a {b: [1, *a]}", "alias *a refers to itself"),
        ("[" * 101 + "]" * 101, "nested more than 100 levels deep"),
        ("[" * 5000 + "]" * 5000, "nested more than 100 levels deep"),
        # Aliases stacked in aliases nest deeper than the text: refused all the same.
        ("a: &a " + "[" * 60 + "]" * 60 + "\nb: " + "[" * 60 + "*a" + "]" * 60, "nested more than 100 levels deep"),
    ],
)
def test_alias_bombs_and_deep_nesting_are_refused(text: str, fragment: str) -> None:
    with pytest.raises(yaml.YAMLError, match=re.escape(fragment)):
        safe_load(text)


def test_nesting_up_to_the_limit_is_read() -> None:
    assert safe_load("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert MAX_ALIAS_NODES == 10_000
