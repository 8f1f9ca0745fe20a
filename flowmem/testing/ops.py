"""Small ops for testing flows and measuring the engine. Import this module to register them
(``App(plugins=["flowmem.testing.ops"])``, CLI ``--plugin flowmem.testing.ops``)."""

from __future__ import annotations

import asyncio

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.keys import ANSWER, QUERY


@register_op
class NoopOp(Op):
    """Do nothing (measures the engine's own overhead)."""

    async def execute(self, ctx: OpContext) -> None:
        return None


@register_op
class SleepOp(Op):
    """Wait ``ms`` milliseconds without blocking the event loop."""

    class Params(OpParams):
        ms: float = Field(0.0, ge=0, description="how long to wait, in milliseconds")

    params: Params

    async def execute(self, ctx: OpContext) -> None:
        await asyncio.sleep(self.params.ms / 1000.0)


@register_op
class EchoOp(Op):
    """Write the query, with an optional prefix, as the answer."""

    class Params(OpParams):
        prefix: str = Field("", description="text put before the query")

    params: Params
    reads = (QUERY,)
    writes = (ANSWER,)

    async def execute(self, ctx: OpContext) -> None:
        ctx[ANSWER] = f"{self.params.prefix}{ctx[QUERY]}"


@register_op
class FailOp(Op):
    """Raise ``RuntimeError(message)`` after ``ms`` milliseconds."""

    class Params(OpParams):
        message: str = Field("boom", description="the error message")
        ms: float = Field(0.0, ge=0, description="wait this long first, in milliseconds")

    params: Params

    async def execute(self, ctx: OpContext) -> None:
        if self.params.ms:
            await asyncio.sleep(self.params.ms / 1000.0)
        raise RuntimeError(self.params.message)


@register_op
class FlakyAnswerOp(Op):
    """Fail, then degrade gracefully by answering ``fallback`` (tests the degradation path)."""

    class Params(OpParams):
        fallback: str = Field("fallback answer", description="the answer written when degraded")

    params: Params
    writes = (ANSWER,)
    degradation = "answers with the `fallback` param instead"

    async def execute(self, ctx: OpContext) -> None:
        raise ConnectionError("upstream unavailable")

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        ctx[ANSWER] = self.params.fallback
