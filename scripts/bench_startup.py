"""Start-up time of the ``flowmem`` command: what a user waits for before anything happens.

Measures, as separate processes (each a cold start of the interpreter and of flowmem):
``python -c pass`` (the floor), ``flowmem --version`` (parsing only), and a cold ``flowmem search``
on the bundled sample (imported first into a throwaway ``$FLOWMEM_HOME``: config, the embedded
store's index for that one workspace, the offline embedding model, one query). Prints JSON with
the median of ``--runs`` runs of each and the machine.

Usage: python scripts/bench_startup.py [--runs 5]
Targets (issue 11): ``--version`` ≤ 8× bare Python start-up; cold search ≤ 1.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import machine

FLOWMEM = str(Path(sys.executable).with_name("flowmem"))
QUERY = ["search", "where do I live?", "-u", "alice", "-w", "demo"]


def wall(argv: list[str], env: dict[str, str], runs: int) -> list[float]:
    """Seconds each of ``runs`` runs of ``argv`` took, start to exit (a failing run stops the benchmark)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (the median is reported)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="flowmem-bench-startup-") as home:
        env = {**os.environ, "FLOWMEM_HOME": home}
        env.pop("FLOWMEM_CONFIG", None)
        subprocess.run([FLOWMEM, "store", "import", "--sample", "-w", "demo"], env=env, check=True, capture_output=True)
        bare = wall([sys.executable, "-c", "pass"], env, args.runs)
        version = wall([FLOWMEM, "--version"], env, args.runs)
        search = wall([FLOWMEM, *QUERY], env, args.runs)
    median = {name: statistics.median(t) for name, t in (("bare", bare), ("version", version), ("search", search))}
    print(
        json.dumps(
            {
                "benchmark": "startup",
                "runs": args.runs,
                "python_c_pass_s": round(median["bare"], 4),
                "flowmem_version_s": round(median["version"], 4),
                "version_vs_bare": round(median["version"] / median["bare"], 2),
                "cold_search_s": round(median["search"], 4),
                "search_command": "flowmem " + " ".join(QUERY),
                "targets": {"version_vs_bare": 8.0, "cold_search_s": 1.5},
                "met": {
                    "version": median["version"] <= 8 * median["bare"],
                    "cold_search": median["search"] <= 1.5,
                },
                "samples_s": {"bare": bare, "version": version, "search": search},
                "machine": machine(),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
