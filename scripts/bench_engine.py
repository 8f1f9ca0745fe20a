"""Engine overhead: how long flowmem itself spends dispatching ops, with ops that do nothing.

Runs flows of no-op ops through the public async API (`await app.run(...)`) many times and
prints JSON: per-flow and per-op times for a 10-op sequence, the marginal cost of one more op
(10-op minus 1-op flow, divided by 9), and a 10-branch parallel flow for comparison.

Usage: python scripts/bench_engine.py [--runs N]
Targets (issue 2): p50 ≤ 25 µs per op and ≤ 0.5 ms per whole 10-op flow.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from benchlib import machine, percentiles

from flowmem import App

FLOWS = {
    "noop_1": "noop_op",
    "noop_10": " >> ".join(["noop_op"] * 10),
    "parallel_10": " | ".join(["noop_op"] * 10),
}


async def measure(app: App, flow: str, runs: int, warmup: int) -> list[float]:
    for _ in range(warmup):
        await app.run(flow)
    samples: list[float] = []
    clock = time.perf_counter_ns
    for _ in range(runs):
        start = clock()
        await app.run(flow)
        samples.append((clock() - start) / 1000.0)  # µs
    return samples


async def main(runs: int) -> dict[str, object]:
    overrides = [f"flow.{name}.flow_content={text}" for name, text in FLOWS.items()]
    async with App(overrides=overrides, plugins=["flowmem.testing.ops"]) as app:
        results = {name: await measure(app, name, runs, warmup=max(200, runs // 10)) for name in FLOWS}
    one, ten = percentiles(results["noop_1"], 50, 95), percentiles(results["noop_10"], 50, 95)
    return {
        "benchmark": "engine",
        "machine": machine(),
        "runs_per_flow": runs,
        "unit": "microseconds",
        "flow_10_ops": ten,
        "per_op_in_10_op_flow": {k: round(v / 10, 3) for k, v in ten.items()},
        "marginal_per_op": {k: round((ten[k] - one[k]) / 9, 3) for k in ten},
        "flow_1_op": one,
        "flow_10_parallel_branches": percentiles(results["parallel_10"], 50, 95),
        "targets": {"per_op_p50_us": 25, "flow_10_ops_p50_us": 500},
        "meets_targets": ten["p50"] / 10 <= 25 and ten["p50"] <= 500,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20_000)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.runs)), indent=2))
