"""Every example in README.md runs as written.

Each ```python and ```bash block runs in a fresh ``$FLOWMEM_HOME`` holding what the quick start
leaves (the bundled sample in workspace ``demo``), with the real default setup (local store, offline
embedding model, no LLM). Python blocks run whole, as a script; bash blocks line by line, each
command as a user would type it, and each must exit 0 — or 2 where its comment says "(exit 2)".
A block preceded by ``<!-- readme-test: skip (reason) -->`` is not run; the reason must say where
it is tested instead. Blocks without a language are sample output, not commands.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
_BLOCK = re.compile(
    r"(<!-- readme-test: skip \((?P<why>[^)]+)\) -->\n)?```(?P<lang>python|bash)\n(?P<body>.*?)```", re.S
)


def blocks() -> list[tuple[str, str, str | None, int]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [
        (m["lang"], m["body"], m["why"], text.count("\n", 0, m.start()) + 1 + (1 if m["why"] else 0))
        for m in _BLOCK.finditer(text)
    ]


@pytest.fixture(scope="module")
def quickstart_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store as `./scripts/quickstart.sh` leaves it (its own test runs the script itself)."""
    home = tmp_path_factory.mktemp("readme-home")
    subprocess.run(
        [str(BIN / "flowmem"), "store", "import", "--sample", "-w", "demo"],
        env=_env(home), check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return home


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLOWMEM_")}
    return {**env, "FLOWMEM_HOME": str(home), "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}"}


def test_the_readme_has_runnable_examples_and_every_skip_says_why() -> None:
    found = blocks()
    assert sum(1 for lang, _, why, _ in found if lang == "python" and why is None) >= 4
    assert sum(1 for lang, _, why, _ in found if lang == "bash" and why is None) >= 1
    assert all(why is None or "test" in why or "CI" in why for _, _, why, _ in found)


@pytest.mark.parametrize(("lang", "body", "why", "line"), blocks(), ids=lambda v: str(v) if isinstance(v, int) else "")
def test_readme_example_runs(
    lang: str, body: str, why: str | None, line: int, quickstart_home: Path, tmp_path: Path
) -> None:
    if why is not None:
        pytest.skip(f"README.md line {line}: {why}")
    home = tmp_path / "home"
    shutil.copytree(quickstart_home, home)
    env = _env(home)
    if lang == "python":
        script = tmp_path / "example.py"
        script.write_text(body, encoding="utf-8")
        done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300, check=False)  # fmt: skip
        assert done.returncode == 0, f"README.md line {line}:\n{body}\n{done.stderr[-3000:]}"
        return
    for command in (c for c in body.splitlines() if c.strip() and not c.lstrip().startswith("#")):
        expected = 2 if "(exit 2)" in command else 0
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300, check=False)  # fmt: skip
        assert done.returncode == expected, (
            f"README.md line {line}: {command}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
        assert "Traceback" not in done.stderr
