"""flowmem.core.own_loop: the one event loop of a synchronous caller (the app's run_sync, the remote client)."""

from __future__ import annotations

import asyncio

import pytest

from flowmem.core.errors import FlowmemError
from flowmem.core.own_loop import OwnLoop


async def _loop_of() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def test_calls_share_one_loop_made_on_first_use_and_closed_with_what_it_holds() -> None:
    own = OwnLoop("await it")
    closed: list[asyncio.AbstractEventLoop] = []

    async def closing() -> None:
        closed.append(asyncio.get_running_loop())

    assert own.close(closing) is False and closed == []  # never used: nothing to close, nothing run
    first, second = own.run(_loop_of()), own.run(_loop_of())
    assert first is second and not first.is_closed()
    assert own.close(closing) is True and closed == [first] and first.is_closed()
    assert own.run(_loop_of()) is not first  # a new one after closing


def test_inside_a_running_loop_it_is_refused_with_the_advice_and_the_coroutine_never_runs() -> None:
    own = OwnLoop("use `await app.run(...)`")
    ran: list[bool] = []

    async def work() -> None:
        ran.append(True)

    async def caller() -> None:
        coroutine = work()
        with pytest.raises(FlowmemError, match=r"cannot run inside an event loop; use `await app.run\(...\)`"):
            own.run(coroutine)
        assert coroutine.cr_frame is None  # closed, not left to warn "never awaited"

    asyncio.run(caller())
    assert ran == []
