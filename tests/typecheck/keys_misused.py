# mypy: enable-error-code="deprecated"
"""An op that misuses typed context keys: each line with an expect comment must be that error, and no other line."""

from __future__ import annotations

from datetime import datetime

from flowmem.flow.context import OpContext
from flowmem.keys import ANSWER, MEMORIES, TIMESTAMP, Key, define_key
from flowmem.schema.memory import Memory


async def execute(ctx: OpContext) -> None:
    memories: list[Memory] = ctx[MEMORIES]
    when: datetime = ctx.get(TIMESTAMP) or datetime.now()
    ctx[ANSWER] = f"{len(memories)} memories at {when}"
    ctx[MEMORIES] = memories[:1]
    kept = list(ctx[MEMORIES])  # list[Memory], through list's Iterable[T]
    ctx[ANSWER] = kept[0].content

    texts: list[str] = ctx[MEMORIES]  # expect: deprecated
    count: int = len(ctx[MEMORIES])
    ctx[ANSWER] = count  # expect: deprecated
    ctx[MEMORIES] = [m.content for m in memories]  # expect: deprecated
    ctx["answer"] = "untyped"  # expect: deprecated
    words: list[str] = list(ctx[MEMORIES])  # expect: deprecated
    stamp: str = ctx.get(TIMESTAMP)  # expect: deprecated
    mine: Key[float] = Key("score", float)
    ctx[mine] = 0.5
    ctx[mine] = "high"  # expect: deprecated
    del texts, stamp, words


MOOD = define_key("mood_of_the_user", float, "how the user feels")  # Key[float], inferred


async def plugin_execute(ctx: OpContext) -> None:
    ctx[MOOD] = 0.5
    ctx[MOOD] = "cheerful"  # expect: deprecated
    inferred = Key("shade", list[str])
    ctx[inferred] = ["blue"]
    ctx[inferred] = [1]  # expect: deprecated
