"""``set_query_op``: the first op of retrieval flows."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.keys import QUERY, QUERY_TIMES, TIMESTAMP
from flowmem.timeexpr.query import QueryTimes


@register_op
class SetQueryOp(Op):
    """Put the query and the time it is asked at into the context.

    The timestamp is the run's ``timestamp`` input when given, else the ``timestamp`` param,
    else now. Later ops resolve relative times ("last weekend") against it. The time expressions the offline
    rules find in the query go to ``query_times`` (:class:`~flowmem.timeexpr.query.QueryTimes`), so the ops
    that need them do not each run the rules again.
    """

    class Params(OpParams):
        timestamp: datetime | None = Field(None, description="fixed query time for every run (None → now)")

    params: Params
    reads = (QUERY,)
    optional_reads = (TIMESTAMP,)
    writes = (QUERY, TIMESTAMP, QUERY_TIMES)

    async def execute(self, ctx: OpContext) -> None:
        ctx[QUERY] = ctx[QUERY].strip()
        ctx[TIMESTAMP] = ctx.get(TIMESTAMP) or self.params.timestamp or datetime.now()
        ctx[QUERY_TIMES] = QueryTimes.of(ctx[QUERY], ctx[TIMESTAMP])
