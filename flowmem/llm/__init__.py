"""LLM backends. Importing this package registers them."""

from flowmem.llm import none, openai_compatible
from flowmem.llm.base import LLM, ChatMessage, ChatResult

__all__ = ["LLM", "ChatMessage", "ChatResult", "none", "openai_compatible"]
