"""The LLM interface ops program against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from flowmem.core.backend import Backend, BackendKind
from flowmem.core.tokens import DEFAULT_TOKENIZER


@dataclass(frozen=True)
class ChatMessage:
    """One message of a chat request."""

    role: str
    content: str


@dataclass(frozen=True)
class ChatResult:
    """An LLM's reply and what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    finish_reason: str = ""  # "stop", or "length" when max_tokens cut the reply off


class LLM(Backend):
    """A chat model.

    Ops check :attr:`available` and use their documented offline path when it is false, so the
    ``none`` backend costs nothing and says so in the trace.
    """

    kind: ClassVar[BackendKind] = "llm"
    available: ClassVar[bool] = True

    async def chat(
        self,
        messages: list[ChatMessage],
        *,
        json_mode: bool = False,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ChatResult:
        """Send a chat request and return the reply."""
        raise NotImplementedError

    @property
    def tokenizer(self) -> str:
        """The :mod:`flowmem.core.tokens` tokenizer that counts this model's tokens (ops budget prompts with it)."""
        return DEFAULT_TOKENIZER
