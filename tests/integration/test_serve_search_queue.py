"""The searches' turns of a real `flowmem serve` (server.search_concurrency, `--search-concurrency`): at the limit,
searches never run side by side in the flow, the others wait in line; adds, /healthz and /metrics do not wait
for them; a bad value is one message and exit 2."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from flowmem.testing.serve_process import ServeProcess

# A read-only search flow that takes a known time: the queue's effect is seen in wall clock, not guessed.
SLOW_OP = """
import asyncio

from flowmem.flow.op import Op, OpParams, register_op


@register_op
class SlowOp(Op):
    class Params(OpParams):
        pass

    reads = ("query",)
    writes = ()

    async def execute(self, ctx):
        await asyncio.sleep(0.25)
"""
CONFIG = "embedding_model:\n  default: {backend: hash}\nflow:\n  slow_search: {flow_content: slow_op}\n"
SEARCHES = 6
FLOW_SECONDS = 0.25


def _value(text: str, name: str, **labels: str) -> float:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return sample.value
    raise AssertionError(f"{name} {labels} not in /metrics")


async def _while_searches_queue(url: str) -> dict[str, float | str]:
    """Six slow searches at once; while they wait in line, an add, /healthz and /metrics."""
    seen: dict[str, float | str] = {}
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:

        async def search(i: int) -> None:
            response = await http.post("/v1/search", json={"query": f"q{i}", "user_id": "u", "flow": "slow_search"})
            assert response.status_code == 200, response.text
            seen["last_search_done"] = time.perf_counter() - started

        async def others() -> None:
            await asyncio.sleep(FLOW_SECONDS * 1.5)  # the first search in the flow, the second in line or in it
            asked = time.perf_counter()
            added = await http.post("/v1/memories", json={"text": "I keep bees on my balcony", "user_id": "u"})
            assert added.status_code == 200, added.text
            seen["add_seconds"] = time.perf_counter() - asked
            asked = time.perf_counter()
            assert (await http.get("/healthz")).status_code == 200
            seen["healthz_seconds"] = time.perf_counter() - asked
            seen["metrics"] = (await http.get("/metrics")).text
            seen["others_done"] = time.perf_counter() - started

        started = time.perf_counter()
        await asyncio.gather(*(search(i) for i in range(SEARCHES)), others())
    return seen


def test_searches_take_turns_and_writes_and_health_do_not_wait(tmp_path: Path) -> None:
    plugin = tmp_path / "slow_plugin.py"
    plugin.write_text(SLOW_OP, encoding="utf-8")
    config = tmp_path / "serve.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    args = ["-c", str(config), "--plugin", str(plugin), "--search-concurrency", "1"]
    with ServeProcess(args, home=tmp_path / "home") as server:
        seen = asyncio.run(_while_searches_queue(server.url))
        after = httpx.get(f"{server.url}/metrics", timeout=30).text

    during = str(seen["metrics"])
    assert _value(during, "flowmem_search_concurrency") == 1
    assert _value(during, "flowmem_search_queued") >= 1  # scraped while searches waited: /metrics did not
    assert float(seen["others_done"]) < float(seen["last_search_done"]) - FLOW_SECONDS
    assert float(seen["add_seconds"]) < 2 * FLOW_SECONDS and float(seen["healthz_seconds"]) < FLOW_SECONDS

    # One search in the flow at a time: the queue's own count, and the flow runs' time, which fits in the wall
    # clock only if they never overlapped (six at once would have taken ~0.25 s, not 1.5).
    assert _value(after, "flowmem_search_running_peak") == 1
    assert _value(after, "flowmem_search_turns") == SEARCHES
    flows = _value(after, "flowmem_flow_duration_seconds_sum", flow="slow_search")
    assert _value(after, "flowmem_flow_duration_seconds_count", flow="slow_search") == SEARCHES
    # (asyncio may wake a sleep up to its clock's resolution early: 1.49984 s for six 0.25 s sleeps was seen once)
    assert flows >= SEARCHES * FLOW_SECONDS * 0.99
    assert float(seen["last_search_done"]) >= flows
    # Each waited for those before it: 0 + 1 + ... + 5 flow times in all, less the moments between them.
    assert _value(after, "flowmem_search_wait_seconds") >= 0.9 * FLOW_SECONDS * sum(range(SEARCHES))
    assert _value(after, "flowmem_search_running") == 0 and _value(after, "flowmem_search_queued") == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--search-concurrency", "0"], "flowmem: error: --search-concurrency: must be a whole number, 1 or more, "
                                        "got '0'"),
        (["--search-concurrency", "two"], "flowmem: error: --search-concurrency: must be a whole number, 1 or more, "
                                          "got 'two'"),
        (["server.search_concurrency=0"], "flowmem: error: server.search_concurrency: Input should be greater than "
                                          "or equal to 1 (got 0)"),
        (["server.search_concurrency=lots"], "flowmem: error: server.search_concurrency: Input should be a valid "
                                             "integer"),
    ],
)  # fmt: skip
def test_a_bad_search_concurrency_is_one_message_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    config = tmp_path / "serve.yaml"
    config.write_text("embedding_model:\n  default: {backend: hash}\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "flowmem", "serve", "-c", str(config), *args], capture_output=True,
                          text=True, timeout=60, env={"FLOWMEM_HOME": str(tmp_path)}, check=False)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(message) and len(done.stderr.strip().splitlines()) == 1, done.stderr
