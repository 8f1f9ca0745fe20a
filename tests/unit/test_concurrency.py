"""gather_cancelling: results in order; on a failure nothing is left running and every failure is seen."""

from __future__ import annotations

import asyncio

import pytest

from flowmem.core.concurrency import gather_cancelling


async def _value(value: int, delay: float = 0.0) -> int:
    await asyncio.sleep(delay)
    return value


async def _fail(message: str, delay: float = 0.0) -> int:
    await asyncio.sleep(delay)
    raise ValueError(message)


def test_results_come_in_the_order_given_not_the_order_finished() -> None:
    assert asyncio.run(gather_cancelling([_value(1, 0.03), _value(2, 0.0), _value(3, 0.01)])) == [1, 2, 3]
    assert asyncio.run(gather_cancelling([])) == []


def test_the_first_failure_is_raised_after_the_others_were_cancelled_and_stopped() -> None:
    stopped: list[str] = []

    async def slow() -> int:
        try:
            await asyncio.sleep(10)
        finally:
            stopped.append("slow")
        return 0

    async def main() -> None:
        with pytest.raises(ValueError, match="boom"):
            await gather_cancelling([slow(), _fail("boom", 0.01)])
        assert stopped == ["slow"]  # stopped before the call returned, not later
        assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []

    asyncio.run(main())


def test_combine_sees_every_failure_the_first_to_fail_first() -> None:
    seen: list[tuple[str, list[str]]] = []

    async def fails_when_cancelled() -> int:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            raise ValueError("while cancelled") from None
        return 0

    def combine(first: BaseException, others: list[BaseException]) -> BaseException:
        seen.append((str(first), [str(e) for e in others]))
        return RuntimeError("combined")

    async def main() -> None:
        # Given first, but it fails only when cancelled: the failure that ended the wait comes first.
        with pytest.raises(RuntimeError, match="combined"):
            await gather_cancelling([fails_when_cancelled(), _fail("a", 0.01), _fail("b", 0.01)], combine=combine)

    asyncio.run(main())
    assert seen == [("a", ["b", "while cancelled"])]


def test_cancelling_the_caller_cancels_every_awaitable() -> None:
    cancelled: list[int] = []

    async def wait(i: int) -> int:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(i)
            raise
        return i

    async def main() -> None:
        outer = asyncio.ensure_future(gather_cancelling([wait(1), wait(2)]))
        await asyncio.sleep(0.01)
        outer.cancel()
        with pytest.raises(asyncio.CancelledError):
            await outer
        assert sorted(cancelled) == [1, 2]

    asyncio.run(main())
