"""The CLI opens its App in one place, ``options.open_app`` (config, plugins, overrides, the secrets kept for the
error line); no command builds one from its arguments by itself."""

from __future__ import annotations

import re
from pathlib import Path

import flowmem.cli

CLI = Path(flowmem.cli.__file__).parent


def test_only_open_app_builds_the_app() -> None:
    builders = {
        path.name: len(re.findall(r"\bApp\(", path.read_text(encoding="utf-8"))) for path in sorted(CLI.glob("*.py"))
    }
    assert builders.pop("options.py") == 1
    assert {name: count for name, count in builders.items() if count} == {}
