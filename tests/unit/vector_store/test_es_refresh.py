"""SharedRefresh: writers that finish while a refresh runs share the next one, never an earlier one."""

from __future__ import annotations

import asyncio
import time

import pytest

from flowmem.vector_store.elasticsearch.refresh import SharedRefresh


class Refreshes:
    """Records each refresh request; a request stays open until the test releases it."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.release: list[asyncio.Event] = []
        self.fail: Exception | None = None

    async def __call__(self, names: list[str]) -> None:
        self.calls.append(names)
        gate = asyncio.Event()
        self.release.append(gate)
        await gate.wait()
        if self.fail is not None:
            raise self.fail


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_writers_during_a_refresh_wait_for_one_shared_refresh_started_after_them() -> None:
    async def main() -> None:
        calls = Refreshes()
        shared = SharedRefresh(calls)
        first = asyncio.ensure_future(shared.refresh(["mem"]))
        await _settle()
        assert calls.calls == [["mem"]]
        # Three writers finish while the first refresh runs: it may have started before their writes.
        later = [asyncio.ensure_future(shared.refresh(names)) for names in (["mem"], ["mem", "hist"], ["hist"])]
        await _settle()
        calls.release[0].set()
        await first
        await _settle()
        assert not any(task.done() for task in later), "returned on a refresh that started before them"
        assert calls.calls == [["mem"], ["mem", "hist"]]  # one more refresh, of every index they wrote
        calls.release[1].set()
        await asyncio.gather(*later)
        assert shared.requests == 2

    asyncio.run(main())


def test_a_failed_refresh_fails_every_writer_sharing_it_and_the_next_round_runs() -> None:
    async def main() -> None:
        calls = Refreshes()
        shared = SharedRefresh(calls)
        calls.fail = RuntimeError("refused")
        waiting = [asyncio.ensure_future(shared.refresh(["mem"])) for _ in range(2)]
        await _settle()
        calls.release[0].set()
        results = await asyncio.gather(*waiting, return_exceptions=True)
        assert [str(r) for r in results] == ["refused", "refused"]
        calls.fail = None
        again = asyncio.ensure_future(shared.refresh(["mem"]))
        await _settle()
        calls.release[1].set()
        await again
        assert len(calls.calls) == 2

    asyncio.run(main())


def test_a_writer_that_gives_up_does_not_cancel_the_refresh_of_the_others() -> None:
    async def main() -> None:
        calls = Refreshes()
        shared = SharedRefresh(calls)
        impatient = asyncio.ensure_future(shared.refresh(["mem"]))
        patient = asyncio.ensure_future(shared.refresh(["mem"]))
        await _settle()
        impatient.cancel()
        with pytest.raises(asyncio.CancelledError):
            await impatient
        calls.release[0].set()
        await patient
        assert calls.calls == [["mem"]]

    asyncio.run(main())


def test_nothing_to_refresh_sends_nothing() -> None:
    async def main() -> None:
        calls = Refreshes()
        await SharedRefresh(calls).refresh([])
        assert calls.calls == []

    asyncio.run(main())


def test_refreshes_start_at_least_spacing_apart_and_writers_meanwhile_share_the_next() -> None:
    async def main() -> None:
        starts: list[float] = []

        async def refresh(names: list[str]) -> None:
            starts.append(time.monotonic())

        shared = SharedRefresh(refresh, spacing=0.3)
        began = time.monotonic()
        await shared.refresh(["mem"])  # nothing refreshed lately: at once
        assert starts[0] - began < 0.1
        # Three writers finishing right after: one refresh, no sooner than 0.3 s after the first.
        await asyncio.gather(*(shared.refresh(["mem"]) for _ in range(3)))
        assert len(starts) == 2 and starts[1] - starts[0] >= 0.3 - 1e-3
        await asyncio.sleep(0.35)
        asked = time.monotonic()
        await shared.refresh(["mem"])  # the last one started long enough ago: at once
        assert len(starts) == 3 and starts[2] - asked < 0.1

    asyncio.run(main())
