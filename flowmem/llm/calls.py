"""Calling an LLM from an op: messages in, reply out, usage counted against the op's trace span."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from flowmem.llm.base import LLM, ChatMessage, ChatResult


class CallRecorder(Protocol):
    """What an LLM call is counted on: an op's :class:`~flowmem.flow.context.OpContext` is one. A protocol, so
    the backends' layer does not import the op contract above it."""

    def llm_call_failed(self, error: BaseException) -> None: ...

    def record_usage(self, llm_calls: int = 1, prompt_tokens: int = 0, completion_tokens: int = 0) -> None: ...


async def ask(
    llm: LLM,
    ctx: CallRecorder,
    system: str,
    user: str,
    *,
    examples: Sequence[Mapping[str, str]] = (),
    json_mode: bool = False,
    max_tokens: int | None = None,
) -> ChatResult:
    """One chat round: a system prompt, few-shot ``examples`` (``{"user": …, "assistant": …}``) and a
    user message. Counts the call and its tokens in the op's trace span, or, when it raises, the failure."""
    messages = [ChatMessage("system", system)]
    for example in examples:
        messages += [ChatMessage("user", example["user"]), ChatMessage("assistant", example["assistant"])]
    messages.append(ChatMessage("user", user))
    try:
        result = await llm.chat(messages, json_mode=json_mode, max_tokens=max_tokens)
    except Exception as exc:
        ctx.llm_call_failed(exc)  # so a degradation it causes is reported as a failed LLM call, and counted
        raise
    ctx.record_usage(1, result.prompt_tokens, result.completion_tokens)
    return result
