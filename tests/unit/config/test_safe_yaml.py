"""The one YAML reader: values that cannot exist are YAML errors with a line and column, never a traceback."""

from __future__ import annotations

import datetime

import pytest
import yaml

from flowmem.config.safe_yaml import safe_load


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
    ],
)
def test_values_that_cannot_exist_are_yaml_errors(text: str, fragment: str) -> None:
    with pytest.raises(yaml.YAMLError) as info:
        safe_load(text)
    message = " ".join(str(info.value).split())
    assert fragment in message
    assert "line 1, column" in message
    assert len(message) < 300  # the value is cut, not printed whole
