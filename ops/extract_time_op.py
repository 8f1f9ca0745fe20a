"""``extract_time_op``: the time a query speaks of ("last weekend", "上周三")."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import EXTRACTED_TIME, QUERY, TIMESTAMP
from flowmem.llm.calls import ask
from flowmem.llm.parse import parse_json
from flowmem.schema.timeparts import format_when
from flowmem.timeexpr.extract import extract_time
from flowmem.timeexpr.from_parts import from_parts, parts_from_reply
from flowmem.timeexpr.gate import has_time_words
from flowmem.timeexpr.model import ExtractedTime


@register_op
class ExtractTimeOp(Op):
    """Extract the time the query refers to, relative to the query's timestamp.

    A keyword gate (English and Chinese) skips queries without time words: ``extracted_time`` is
    then ``None`` and nothing is spent. Otherwise, with an LLM configured, the LLM is asked (system
    prompt, few-shot examples, the query and its timestamp) and its reply read tolerantly; without
    one — or when the reply holds no usable time — the offline rules run (own rules for relative
    days, weeks, weekends, months, seasons and years in both languages, dateparser for the rest).
    The result has the time parts (year, month, day, week, weekday, hour as they apply) and a
    start/end range.
    """

    class Params(OpParams):
        language: Literal["en", "zh"] = Field("en", description="the prompt's language and the rules tried first")

    params: Params
    reads = (QUERY, TIMESTAMP)
    writes = (EXTRACTED_TIME,)
    uses = ("llm",)
    degradation = "uses the offline rules instead of the LLM"

    async def execute(self, ctx: OpContext) -> None:
        query: str = ctx[QUERY]
        now: datetime = ctx[TIMESTAMP]
        if not has_time_words(query):
            ctx.note("time", "no time words")
            ctx[EXTRACTED_TIME] = None
            return
        found: ExtractedTime | None = None
        if self.llm.available:
            found = await self._ask_llm(ctx, query, now)
            if found is None:
                ctx.note("llm", "reply held no time; rules used")
        if found is None:
            found = self._rules(query, now)
        ctx.note("time", found.to_dict() if found is not None else None)
        ctx[EXTRACTED_TIME] = found

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        ctx[EXTRACTED_TIME] = self._rules(ctx[QUERY], ctx[TIMESTAMP])

    def _rules(self, query: str, now: datetime) -> ExtractedTime | None:
        first: Literal["en", "zh"] = self.params.language
        second: Literal["en", "zh"] = "zh" if first == "en" else "en"
        return extract_time(query, now, first) or extract_time(query, now, second)

    async def _ask_llm(self, ctx: OpContext, query: str, now: datetime) -> ExtractedTime | None:
        prompt = load_prompt(f"extract_time_{self.params.language}")
        user = prompt.user.format(timestamp=format_when(now), query=query)
        reply = await ask(self.llm, ctx, prompt.system, user, examples=prompt.examples, json_mode=True, max_tokens=100)
        parts = parts_from_reply(parse_json(reply.text))
        return from_parts(parts, now, expression=query) if parts else None
