"""A fake LLM for tests: scripted replies, an optional delay, recorded calls. Registered as ``fake``.

```yaml
llm:
  default:
    backend: fake
    params:
      replies: ['{"0": 0.9, "1": 0.2}']      # used in turn, the last one repeats
      by_prompt: {"Extract": '{"year": 2024}'} # a reply for prompts containing this text (checked first)
      delay_ms: 300
```
After a run, ``app.backend("llm").calls`` holds every request (messages, json_mode).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pydantic import Field

from flowmem.core.backend import BackendParams, register_backend
from flowmem.core.errors import BackendUnavailableError
from flowmem.llm.base import LLM, ChatMessage, ChatResult


class FakeLLMParams(BackendParams):
    replies: list[str] = Field(default_factory=lambda: ["{}"], description="replies in turn; the last repeats")
    by_prompt: dict[str, str] = Field(default_factory=dict, description="prompt substring → reply (checked first)")
    delay_ms: float = Field(0.0, ge=0, description="wait this long per call (simulates latency, non-blocking)")
    fail: str | None = Field(None, description="raise BackendUnavailableError with this text instead of replying")


@dataclass(frozen=True)
class RecordedCall:
    messages: list[ChatMessage]
    json_mode: bool


@register_backend("llm", "fake")
class FakeLLM(LLM):
    """Replies from a script; counts characters / 4 as tokens."""

    Params = FakeLLMParams
    params: FakeLLMParams

    def __init__(self, params: BackendParams | None = None, *, name: str = "default"):
        super().__init__(params, name=name)
        self.calls: list[RecordedCall] = []
        self._turn = 0

    async def chat(
        self,
        messages: list[ChatMessage],
        *,
        json_mode: bool = False,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        self.calls.append(RecordedCall(list(messages), json_mode))
        if self.params.delay_ms:
            await asyncio.sleep(self.params.delay_ms / 1000.0)
        if self.params.fail is not None:
            raise BackendUnavailableError(self.params.fail)
        prompt = "\n".join(m.content for m in messages)
        reply = next((r for key, r in self.params.by_prompt.items() if key in prompt), None)
        if reply is None:
            replies = self.params.replies or [""]
            reply = replies[min(self._turn, len(replies) - 1)]
            self._turn += 1
        prompt_tokens, completion_tokens = len(prompt) // 4 + 1, len(reply) // 4 + 1
        return ChatResult(reply, prompt_tokens, completion_tokens, model="fake", finish_reason="stop")
