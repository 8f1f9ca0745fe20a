"""`pip install .` into a fresh virtualenv works, and the installed `flowmem` runs from any directory."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _copy_checkout(destination: Path) -> Path:
    """Copy what git would check out (tracked and new, not ignored files), so the test sees a clean clone."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


@pytest.mark.slow
def test_installed_package_works_from_any_directory(tmp_path: Path) -> None:
    checkout = _copy_checkout(tmp_path / "checkout")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(checkout)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-3000:]
    shutil.rmtree(checkout)  # nothing may depend on the source tree

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    flowmem = str(venv / "bin" / "flowmem")

    def run(*argv: str) -> str:
        result = subprocess.run([flowmem, *argv], cwd=elsewhere, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, f"flowmem {' '.join(argv)}: {result.stderr}"
        return result.stdout

    assert run("--version").startswith("flowmem ")
    assert "set_query" in run("flows")
    assert "set_query_op" in run("ops")
    assert "all" in run("validate")
    assert "query: hello" in run("run", "set_query", "-q", "hello")
    assert "noop_op" in run("ops", "--plugin", "flowmem.testing.ops")  # flowmem.testing ships in the wheel
    # the bundled BPE rank files ship too: exact token counts with no download
    code = "from flowmem.core.tokens import count_tokens as c; print(c('hello world'), c('hi', 'cl100k_base'))"
    counted = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=elsewhere, capture_output=True, text=True)
    assert counted.stdout.split() == ["2", "1"], counted.stderr
    # the licences of the Swagger UI and ReDoc files /docs serves ship beside them (flowmem.server.docs)
    code = ("from flowmem.server.docs import LICENSES; "
            "print(' '.join(sorted(p.name for p in LICENSES.iterdir())))")  # fmt: skip
    shipped = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=elsewhere, capture_output=True, text=True)
    assert shipped.stdout.split() == ["THIRD-PARTY-NOTICES.md", "fastapi-offline.LICENSE", "fastapi.LICENSE",
                                      "redoc.LICENSE", "redoc.standalone.js.LICENSE.txt",
                                      "swagger-ui-bundle.js.LICENSE.txt", "swagger-ui.LICENSE",
                                      "swagger-ui.NOTICE"], shipped.stderr  # fmt: skip
