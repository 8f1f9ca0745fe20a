"""Framework adapters: flowmem where agents already live, each a thin caller of ``app.memories``.

- :mod:`flowmem.integrations.langgraph`: ``FlowmemStore``, a LangGraph ``BaseStore`` (LangGraph agents, LangMem);
  ``pip install 'flowmem[langgraph]'``.
- :mod:`flowmem.integrations.openai_agents`: ``FlowmemSession``, an OpenAI Agents SDK ``Session``;
  ``pip install 'flowmem[openai-agents]'``.
- :mod:`flowmem.integrations.langchain`: ``FlowmemChatMessageHistory`` (a ``BaseChatMessageHistory`` on a chat
  session) and ``FlowmemRetriever`` (a ``BaseRetriever`` over memories); ``pip install 'flowmem[langchain]'``.
- :mod:`flowmem.integrations.llamaindex`: ``FlowmemMemoryBlock`` (a ``BaseMemoryBlock`` of ``Memory``) and
  ``FlowmemChatStore`` (a ``BaseChatStore`` on chat sessions); ``pip install 'flowmem[llamaindex]'``.

Each adapter takes an :class:`~flowmem.App` in this process (any store it is configured with, Elasticsearch
included) or a :class:`~flowmem.integrations.remote.RemoteApp`, the Python client of a remote ``flowmem serve``
(its HTTP API, with an API key): ``FlowmemStore(RemoteApp(url, api_key=KEY))`` works as ``FlowmemStore(app)`` does.
Importing a module whose framework is not installed raises :class:`~flowmem.core.errors.BackendUnavailableError`
with the ``pip install`` that fixes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeAlias

from flowmem.core.errors import BackendUnavailableError

if TYPE_CHECKING:
    from flowmem.app import App
    from flowmem.integrations.remote import RemoteApp

    AnyApp: TypeAlias = App | RemoteApp  # what an adapter takes: flowmem in this process, or a remote flowmem serve


@contextmanager
def requires(module: str, extra: str) -> Iterator[None]:
    """Turn a failed import of the framework into the install hint of its extra."""
    try:
        yield
    except ImportError as exc:
        raise BackendUnavailableError(
            f"flowmem.integrations.{module} needs its framework ({exc}): pip install 'flowmem[{extra}]'"
        ) from exc
