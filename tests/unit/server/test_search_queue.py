"""The searches' turns (flowmem.server.admission.SearchQueue): at most the limit at once, first come first served,
a cancelled waiter out of the line, a turn handed on and never lost. asyncio.run, not pytest-asyncio (the es8 pass)."""

from __future__ import annotations

import asyncio

import pytest

from flowmem.server.admission import SearchQueue


def test_at_most_the_limit_at_once_in_order_of_arrival() -> None:
    async def main() -> tuple[list[int], SearchQueue, int]:
        queue = SearchQueue(2)
        order: list[int] = []
        inside = [0, 0]  # now, most

        async def search(i: int) -> None:
            async with queue.turn():
                order.append(i)
                inside[0] += 1
                inside[1] = max(inside[1], inside[0])
                await asyncio.sleep(0.01 * (i % 3))  # uneven lengths: turns still start in arrival order
                inside[0] -= 1

        await asyncio.gather(*(search(i) for i in range(12)))
        return order, queue, inside[1]

    order, queue, most = asyncio.run(main())
    assert order == list(range(12))
    assert most == 2 and queue.peak == 2
    assert queue.turns == 12 and queue.running == 0 and queue.waiting == 0
    assert queue.waited > 0


def test_a_newcomer_never_overtakes_a_waiting_search() -> None:
    async def main() -> list[str]:
        queue = SearchQueue(1)
        order: list[str] = []
        release = asyncio.Event()

        async def holder() -> None:
            async with queue.turn():
                order.append("holder")
                await release.wait()

        async def search(name: str) -> None:
            async with queue.turn():
                order.append(name)

        first = asyncio.create_task(holder())
        await asyncio.sleep(0)
        waiting = asyncio.create_task(search("waited"))
        await asyncio.sleep(0)
        release.set()
        await asyncio.sleep(0)  # the holder leaves: the place is handed to "waited", not left free
        newcomer = asyncio.create_task(search("newcomer"))
        await asyncio.gather(first, waiting, newcomer)
        return order

    assert asyncio.run(main()) == ["holder", "waited", "newcomer"]


def test_a_cancelled_waiter_leaves_the_line_and_a_handed_turn_is_passed_on() -> None:
    async def main() -> tuple[list[str], SearchQueue]:
        queue = SearchQueue(1)
        order: list[str] = []

        async def search(name: str) -> None:
            async with queue.turn():
                order.append(name)

        async with queue.turn():
            order.append("holder")
            gone = asyncio.create_task(search("gone"))
            handed = asyncio.create_task(search("handed"))
            last = asyncio.create_task(search("last"))
            await asyncio.sleep(0)
            assert queue.waiting == 3
            gone.cancel()  # cancelled while it waits: out of the line
            await asyncio.sleep(0)
            assert queue.waiting == 2
        # Leaving the block handed the place to "handed", which is cancelled before it could run: "last" gets it.
        handed.cancel()
        await asyncio.gather(gone, handed, last, return_exceptions=True)
        return order, queue

    order, queue = asyncio.run(main())
    assert order == ["holder", "last"]
    assert queue.running == 0 and queue.waiting == 0 and queue.peak == 1


def test_the_limit_is_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        SearchQueue(0)
