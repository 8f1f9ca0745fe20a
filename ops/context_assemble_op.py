"""``context_assemble_op``: a prompt-ready context within a token budget."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from flowmem.assembly import MIN_TOKEN_LIMIT, InsertMethod, assemble
from flowmem.assembly.blocks import DEFAULT_BLOCKS, BlockSpec, render_items
from flowmem.core.tokens import check_tokenizer_name, get_tokenizer
from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpIO, OpParams, register_op
from flowmem.keys import CONTEXT_MESSAGES, ENTITIES, FACTS, MEMORIES, QUERY, SUMMARY, TRIPLES, Key, key_named
from flowmem.schema.memory import Message
from flowmem.scoring.same_content import content_key

# The session op writes Messages; a flow given the history as an input by hand may pass plain dicts.
HISTORY: Key[list[Message | dict[str, Any]]] = Key(
    "chat_history", list[Message | dict[str, Any]], "the chat history, oldest first: Messages or their dicts"
)


@register_op
class ContextAssembleOp(Op):
    """Fill ``token_limit`` with memory blocks and chat history; write ``context_messages`` for an OpenAI-style call.

    The new user message (``query``) always goes in; the chat history (``chat_history``, oldest
    first) gets up to ``history_ratio`` of the rest, newest messages first; the blocks (``blocks``:
    static text, facts, memories, entities, triples, summary) fill what is left by priority — when
    they do not fit, the lowest priority loses first, whole items from its tail, then the whole
    block; whatever is still free goes back to older history. The rule, step by step, is
    :mod:`flowmem.assembly`. ``context_messages`` never exceeds ``token_limit`` counted with
    :func:`flowmem.core.tokens.count_message_tokens` by ``tokenizer`` (unset: the op's LLM's, see
    :mod:`flowmem.core.tokens`).

    ``insert_method``: ``system`` puts the blocks in a system message first; ``user`` into the new
    user message between ``<memory>`` tags (LlamaIndex's two ways). A retrieved memory that is also
    one of the facts is left out of the memories block (said once). The trace (``context`` note,
    shown by ``--explain``) says per block whether it was kept, truncated or cut, with its tokens and why.
    """

    class Params(OpParams):
        token_limit: int = Field(4000, ge=MIN_TOKEN_LIMIT, description="most prompt tokens the messages may take")
        insert_method: InsertMethod = Field(
            "system", description="system: blocks in a system message; user: inside the new user message"
        )
        system_prompt: str = Field("", description="static text: the block whose source is system_prompt")
        blocks: list[BlockSpec] = Field(
            default_factory=lambda: list(DEFAULT_BLOCKS),
            description="the blocks: name, source, priority (0 first), max_tokens, heading",
        )
        history_ratio: float = Field(
            0.5, ge=0.0, le=1.0, description="share of the budget (after the new message) kept for chat history first"
        )
        tokenizer: str | None = Field(None, description="tokenizer to count with (None: the LLM's)")

        @field_validator("tokenizer")
        @classmethod
        def _known_tokenizer(cls, value: str | None) -> str | None:
            return value if value is None else check_tokenizer_name(value)

        @field_validator("blocks")
        @classmethod
        def _unique_names(cls, value: list[BlockSpec]) -> list[BlockSpec]:
            names = [b.name for b in value]
            doubled = sorted({n for n in names if names.count(n) > 1})
            if doubled:
                raise ValueError(f"block names must be unique; given twice: {', '.join(doubled)}")
            return value

    params: Params
    optional_reads = (HISTORY, QUERY, FACTS, MEMORIES, ENTITIES, TRIPLES, SUMMARY)
    writes = (CONTEXT_MESSAGES,)
    uses = ("llm",)

    @classmethod
    def io(cls, params: OpParams) -> OpIO:
        if not isinstance(params, ContextAssembleOp.Params):
            return OpIO(cls.reads, cls.optional_reads, cls.writes)
        sources = [b.source for b in params.blocks if b.source != "system_prompt"]
        return OpIO((), tuple(dict.fromkeys((HISTORY, QUERY, *(key_named(source) for source in sources)))), cls.writes)

    async def execute(self, ctx: OpContext) -> None:
        p = self.params
        tokenizer = p.tokenizer or self.llm.tokenizer
        values = {spec.source: self._value(ctx, spec.source) for spec in p.blocks}
        if values.get("facts") and values.get("memories"):
            # A retrieved memory that is also one of the facts would be said twice: the facts block has it.
            known = {content_key(str(fact)) for fact in values["facts"]}
            memories = [m for m in values["memories"] if content_key(m.content) not in known]
            if len(memories) < len(values["memories"]):
                ctx.note("memories_in_facts", len(values["memories"]) - len(memories))
            values["memories"] = memories
        blocks = [(spec, render_items(spec.source, values[spec.source])) for spec in p.blocks]
        # Messages as the session op writes them; plain dicts too, as a flow input given by hand.
        history = [m if isinstance(m, Message) else Message.model_validate(m) for m in ctx.get(HISTORY) or []]
        query = ctx.get(QUERY)
        result = assemble(
            blocks=blocks,
            history=[{"role": m.role, "content": m.content} for m in history],
            query=None if query is None else str(query),
            token_limit=p.token_limit,
            insert_method=p.insert_method,
            history_ratio=p.history_ratio,
            tokenizer=tokenizer,
        )
        if result.query_truncated:
            ctx.warn(f"the new message alone is over token_limit {p.token_limit}: cut to {result.query_tokens} tokens")
        if result.history.skipped:
            ctx.note("history_skipped", f"{result.history.skipped} tool message(s) left out: no tool call to pair with")
        ctx[CONTEXT_MESSAGES] = result.messages
        ctx.note("context", {**result.trace(), "tokenizer": tokenizer, "exact": get_tokenizer(tokenizer).exact})

    def _value(self, ctx: OpContext, source: str) -> Any:
        return self.params.system_prompt if source == "system_prompt" else ctx.get(key_named(source))
