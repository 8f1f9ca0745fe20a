"""The ``none`` LLM backend: no LLM at all. Ops that need one take their offline path."""

from __future__ import annotations

from typing import ClassVar

from flowmem.core.backend import register_backend
from flowmem.core.errors import BackendUnavailableError
from flowmem.llm.base import LLM, ChatMessage, ChatResult


@register_backend("llm", "none")
class NoLLM(LLM):
    """No LLM is configured; ``chat`` raises and ``available`` is false."""

    available: ClassVar[bool] = False

    async def chat(
        self,
        messages: list[ChatMessage],
        *,
        json_mode: bool = False,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        raise BackendUnavailableError(
            f"no LLM is configured (llm.{self.name}.backend=none); use -c openai or set "
            f"llm.{self.name}.backend=openai_compatible"
        )
