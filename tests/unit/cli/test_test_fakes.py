"""The test fakes of ``flowmem.testing`` are not part of a production app: loaded only on request.

These run the CLI in a fresh interpreter, because this test session registers the fakes itself
(``tests/conftest.py``).
"""

from __future__ import annotations

import subprocess
import sys


def _flowmem(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flowmem", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_a_production_app_does_not_register_the_fake_llm_and_says_where_it_lives() -> None:
    done = _flowmem("config", "show", "llm.default.backend=fake")
    assert done.returncode == 2, done.stderr
    assert "unknown llm backend 'fake'" in done.stderr
    assert "--plugin flowmem.testing.fake_llm" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_fake_llm_loads_as_a_plugin() -> None:
    done = _flowmem("config", "show", "--plugin", "flowmem.testing.fake_llm", "llm.default.backend=fake")
    assert done.returncode == 0, done.stderr
    assert "backend: fake" in done.stdout
