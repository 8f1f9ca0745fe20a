"""``short_term_memory_op``: a chat session's short-term memory (LlamaIndex ``Memory``, LangChain summary buffer)."""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import Field, field_validator

from flowmem.core.tokens import check_tokenizer_name, count_tokens, message_tokens, truncate_to_tokens
from flowmem.flow.context import OpContext
from flowmem.flow.op import Op, OpParams, register_op
from flowmem.flow.prompts import load_prompt
from flowmem.keys import (
    CHAT_HISTORY,
    QUERY,
    REPLY,
    SESSION_FLUSH,
    SESSION_ID,
    SESSION_MESSAGES,
    SUMMARY,
    TIMESTAMP,
    USER_ID,
    WORKSPACE_ID,
    WRITE_FENCES,
)
from flowmem.llm.calls import ask
from flowmem.schema.memory import Message
from flowmem.schema.session import SessionFlush

# The end of a first sentence: Latin or CJK sentence punctuation, or a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|[。！？\n]")


@register_op
class ShortTermMemoryOp(Op):
    """Append the new message to the session's window and flush the oldest to long-term memory when it is full.

    The assistant's ``reply`` to the previous message (when given) and the new user message (``query``)
    — or, instead, ``session_messages`` as they are (any roles: an agent's tool calls and results too;
    ``app.memories.add_to_session``) — join the session's window (per workspace, user and ``session_id``)
    in the store at once (:meth:`~flowmem.vector_store.sessions.SessionStore.append_to_session`, the one
    rule of every session write), so a restart never loses a turn. When the window's
    tokens (OpenAI chat framing included, :func:`flowmem.core.tokens.count_message_tokens`) exceed
    ``chat_history_token_ratio`` × ``token_limit``, the oldest messages — at least
    ``token_flush_size`` tokens of them, and as many more as bring the window under the ratio, never
    the new message — are chosen to flush: written to ``session_flush`` with the rolling
    ``summary`` once they are gone. The op does not drop them itself: the memory service
    (``app.memories.context``) writes them through the write flow and only then trims them from
    the stored window, so a failed write loses nothing (``flowmem run chat_context`` alone leaves
    the flush pending, and says so in the trace).

    The summary: with an LLM, a rewrite of the summary so far plus the flushed messages (prompt
    ``short_term_summary``); offline, an extractive summary — the first sentence of each flushed
    user message, one ``- `` line each — honest about what it is. Either is capped at
    ``summary_max_tokens``, oldest lines dropped first.

    Writes ``chat_history`` (the window without the messages to flush, oldest first), ``summary``
    and ``session_flush`` (``None`` when nothing is flushed).
    """

    class Params(OpParams):
        token_limit: int = Field(30000, ge=1, description="the prompt's token budget the window is a share of")
        chat_history_token_ratio: float = Field(
            0.7, gt=0, le=1, description="share of token_limit the window may fill before the oldest are flushed"
        )
        token_flush_size: int = Field(3000, ge=1, description="tokens flushed at least, oldest messages first")
        summary_max_tokens: int = Field(256, ge=0, description="cap of the rolling summary of flushed messages")
        tokenizer: str | None = Field(None, description="tokenizer to count with (None: the op's LLM's)")

        @field_validator("tokenizer")
        @classmethod
        def _known(cls, value: str | None) -> str | None:
            return value if value is None else check_tokenizer_name(value)

    params: Params
    reads = (USER_ID, SESSION_ID)
    # query (a chat turn) or session_messages (appended as given): one of them, said when both are missing.
    optional_reads = (QUERY, SESSION_MESSAGES, WORKSPACE_ID, TIMESTAMP, REPLY, WRITE_FENCES)
    writes = (CHAT_HISTORY, SUMMARY, SESSION_FLUSH)
    uses = ("vector_store", "llm")
    writes_store = True  # it stores the session: a read-only API key may not run a flow holding it

    async def execute(self, ctx: OpContext) -> None:
        user, session_id = ctx[USER_ID], ctx[SESSION_ID]
        workspace = ctx.get(WORKSPACE_ID) or "default"
        when = ctx.get(TIMESTAMP) or datetime.now().replace(microsecond=0)
        added: list[Message] = list(ctx.get(SESSION_MESSAGES) or [])
        if not added:
            if ctx.get(REPLY):
                added.append(Message(role="assistant", name="assistant", content=ctx[REPLY], time_created=when))
            added.append(Message(role="user", name=user, content=ctx[QUERY], time_created=when))
        # durable before anything else: a crash after this keeps the turn (the store's one session write rule)
        stored = await self.vector_store.append_to_session(
            workspace, user, session_id, added, fence=self.write_fence(ctx)
        )

        tokens = [message_tokens(_chat(m), self._tokenizer) for m in stored.messages]
        budget = int(self.params.token_limit * self.params.chat_history_token_ratio)
        cut = self._cut(tokens, budget)
        flushed, kept = stored.messages[:cut], stored.messages[cut:]
        summary = stored.summary
        if flushed:
            summary = await self._summary(ctx, user, stored.summary, flushed)
            ctx[SESSION_FLUSH] = SessionFlush(messages=flushed, tokens=sum(tokens[:cut]), summary=summary)
        else:
            ctx[SESSION_FLUSH] = None
        ctx[CHAT_HISTORY] = kept
        ctx[SUMMARY] = summary
        ctx.note("window", f"{len(kept)} messages, {sum(tokens[cut:])} of {budget} tokens (session v{stored.version})")
        if flushed:
            ctx.note(
                "flush",
                f"{len(flushed)} oldest messages, {sum(tokens[:cut])} tokens, to long-term memory (written by the "
                "memory service after the flow, app.memories.context; pending until then)",
            )

    @property
    def _tokenizer(self) -> str:
        return self.params.tokenizer or self.llm.tokenizer

    def _cut(self, tokens: list[int], budget: int) -> int:
        """How many of the oldest messages to flush: none while the window fits ``budget``; else at least
        ``token_flush_size`` tokens, more until the rest fits, never the newest message."""
        total = sum(tokens)
        if total <= budget:
            return 0
        cut = flushed = 0
        while cut < len(tokens) - 1 and (flushed < self.params.token_flush_size or total - flushed > budget):
            flushed += tokens[cut]
            cut += 1
        return cut

    async def _summary(self, ctx: OpContext, user: str, before: str, flushed: list[Message]) -> str:
        cap = self.params.summary_max_tokens
        if cap == 0:
            return ""
        if self.llm.available:
            try:
                text = await self._llm_summary(ctx, user, before, flushed)
                ctx.note("summary", "llm")
                return _capped(text.strip().splitlines(), cap, self._tokenizer)
            except Exception as exc:  # any failed call: the extractive summary instead, and said so
                ctx.warn(f"the LLM summary failed ({type(exc).__name__}: {exc}); kept an extractive summary instead")
        ctx.note("summary", "extractive: the first sentence of each flushed user message (no LLM)")
        lines = [line for line in before.splitlines() if line.strip()]
        lines += [f"- {first_sentence(m.content)}" for m in flushed if m.role == "user" and m.content.strip()]
        return _capped(lines, cap, self._tokenizer)

    async def _llm_summary(self, ctx: OpContext, user: str, before: str, flushed: list[Message]) -> str:
        prompt = load_prompt("short_term_summary")
        listing = "\n".join(f"{m.role}: {' '.join(m.content.split())}" for m in flushed)
        max_words = max(self.params.summary_max_tokens * 3 // 4, 1)
        reply = await ask(
            self.llm, ctx, prompt.system.format(max_words=max_words),
            prompt.user.format(user=user, summary=before or "(none)", messages=listing),
            max_tokens=self.params.summary_max_tokens,
        )  # fmt: skip
        return reply.text


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` that says something (3 words or more; a greeting like "Hi!" is skipped),
    else its first; spaces collapsed. A sentence ends at . ! ? (then a space), 。！？ or a line break."""
    sentences = [" ".join(s.split()) for s in _SENTENCE_END.split(text.strip()) if s.strip()]
    informative = (s for s in sentences if len(s.split()) >= 3 or (len(s) >= 8 and not s.isascii()))
    return next(informative, sentences[0] if sentences else "")


def _chat(message: Message) -> dict[str, str]:
    return {"role": message.role, "content": message.content}


def _capped(lines: list[str], cap: int, tokenizer: str) -> str:
    """The newest ``lines`` that fit ``cap`` tokens together (oldest dropped first); one too long is cut."""
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        cost = count_tokens(line + "\n", tokenizer)
        if used + cost > cap:
            if not kept:
                kept.append(truncate_to_tokens(line, cap, tokenizer))
            break
        kept.append(line)
        used += cost
    return "\n".join(reversed(kept))
