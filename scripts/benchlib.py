"""Shared helpers for the `bench_*.py` scripts: machine facts and percentiles."""

from __future__ import annotations

import os
import platform
import statistics
import sys
from datetime import datetime, timezone
from typing import Any


def machine() -> dict[str, Any]:
    """What the benchmark ran on."""
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory_gib = None
    try:
        with open("/proc/meminfo", encoding="utf-8") as handle:
            memory_gib = round(int(handle.readline().split()[1]) / 1024 / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": memory_gib,
        "os": f"{platform.system()} {platform.release()}",
        "python": sys.version.split()[0],
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def percentiles(samples: list[float], *points: int) -> dict[str, float]:
    """``{"p50": …, "p95": …}`` of ``samples`` (any unit), rounded to 4 significant decimals."""
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    result = {f"p{p}": round(cuts[p - 1], 4) for p in points}
    result["mean"] = round(statistics.fmean(samples), 4)
    return result
