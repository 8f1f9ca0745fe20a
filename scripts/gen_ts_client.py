"""Regenerate the TypeScript client (clients/typescript) from flowmem serve's OpenAPI document.

    .venv/bin/python scripts/gen_ts_client.py           # write openapi.json and src/schema.ts
    .venv/bin/python scripts/gen_ts_client.py --check   # exit 1 naming what is stale, write nothing

1. ``clients/typescript/openapi.json``: ``/openapi.json`` as the server answers it (flowmem.server.openapi);
2. ``clients/typescript/src/schema.ts``: its types, by the package's ``npm run generate`` (openapi-typescript, the
   version pinned in the package's package-lock.json; ``npm ci`` first when node_modules is missing).

``src/index.ts`` (the client: openapi-fetch typed by ``paths``, the API key, ``unwrap``) is written by hand and
needs no change when routes or models change. ``--check`` generates into a temp copy and compares; the tests run
it (tests/integration/test_ts_client.py), so a change of the API without a regenerated client fails.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from flowmem.server.openapi import openapi_document, openapi_text

PACKAGE = Path(__file__).resolve().parents[1] / "clients" / "typescript"
GENERATED = ("openapi.json", "src/schema.ts")


def npm(*args: str, cwd: Path) -> None:
    npm_bin = shutil.which("npm")
    if npm_bin is None:
        sys.exit("gen_ts_client: npm not found; install Node.js 20 (it ships npm)")
    subprocess.run([npm_bin, *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def generate(into: Path) -> None:
    """Write the generated files of the package at ``into`` (its node_modules installed)."""
    (into / "openapi.json").write_text(openapi_text(openapi_document()), encoding="utf-8")
    npm("run", "--silent", "generate", cwd=into)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed generated file is stale")
    check = parser.parse_args().check
    if not (PACKAGE / "node_modules").is_dir():
        npm("ci", "--no-audit", "--no-fund", cwd=PACKAGE)
    if not check:
        generate(PACKAGE)
        print(f"gen_ts_client: wrote {', '.join(str(PACKAGE / name) for name in GENERATED)}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "typescript"
        shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("node_modules", "dist"))
        (copy / "node_modules").symlink_to(PACKAGE / "node_modules")
        generate(copy)
        stale = [name for name in GENERATED if (copy / name).read_bytes() != (PACKAGE / name).read_bytes()]
    if stale:
        print(f"gen_ts_client: stale in clients/typescript: {', '.join(stale)}; run scripts/gen_ts_client.py and "
              "commit them", file=sys.stderr)  # fmt: skip
        return 1
    print("gen_ts_client: clients/typescript is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
