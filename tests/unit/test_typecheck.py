"""mypy refuses misused typed context keys: tests/typecheck/keys_misused.py, every marked line and only those."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "tests" / "typecheck" / "keys_misused.py"


def test_mypy_reports_each_misused_key_and_nothing_else() -> None:
    expected = {
        n: line.split("# expect: ")[1].strip()
        for n, line in enumerate(MODULE.read_text().splitlines(), 1)
        if "# expect: " in line
    }
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(MODULE.relative_to(ROOT))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = {
        int(m["line"]): m["code"]
        for m in re.finditer(
            r"^tests/typecheck/keys_misused\.py:(?P<line>\d+): error: .*\[(?P<code>[a-z-]+)\]$",
            run.stdout,
            re.MULTILINE,
        )
    }
    assert found == expected, run.stdout
