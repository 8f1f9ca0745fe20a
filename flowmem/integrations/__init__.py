"""Framework adapters: flowmem where agents already live, each a thin caller of ``app.memories``.

- :mod:`flowmem.integrations.langgraph`: ``FlowmemStore``, a LangGraph ``BaseStore`` (LangGraph agents, LangMem);
  ``pip install 'flowmem[langgraph]'``.
- :mod:`flowmem.integrations.openai_agents`: ``FlowmemSession``, an OpenAI Agents SDK ``Session``;
  ``pip install 'flowmem[openai-agents]'``.
- :mod:`flowmem.integrations.langchain`: ``FlowmemChatMessageHistory`` (a ``BaseChatMessageHistory`` on a chat
  session) and ``FlowmemRetriever`` (a ``BaseRetriever`` over memories); ``pip install 'flowmem[langchain]'``.
- :mod:`flowmem.integrations.llamaindex`: ``FlowmemMemoryBlock`` (a ``BaseMemoryBlock`` of ``Memory``) and
  ``FlowmemChatStore`` (a ``BaseChatStore`` on chat sessions); ``pip install 'flowmem[llamaindex]'``.

Each adapter works on an :class:`~flowmem.App` in this process (any store it is configured with, Elasticsearch
included). flowmem has no Python client of a remote ``flowmem serve`` yet, so none of them talks HTTP.
Importing a module whose framework is not installed raises :class:`~flowmem.core.errors.BackendUnavailableError`
with the ``pip install`` that fixes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from flowmem.core.errors import BackendUnavailableError


@contextmanager
def requires(module: str, extra: str) -> Iterator[None]:
    """Turn a failed import of the framework into the install hint of its extra."""
    try:
        yield
    except ImportError as exc:
        raise BackendUnavailableError(
            f"flowmem.integrations.{module} needs its framework ({exc}): pip install 'flowmem[{extra}]'"
        ) from exc
