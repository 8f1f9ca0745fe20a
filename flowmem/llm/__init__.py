"""LLM backends. Importing this package registers them."""

from flowmem.llm import none
from flowmem.llm.base import LLM, ChatMessage, ChatResult

__all__ = ["LLM", "ChatMessage", "ChatResult", "none"]
