"""The framework adapters' tests share one offline setup."""

from collections.abc import Callable, Sequence
from typing import Any

# Offline and fast: the hash embedder, no LLM, an in-memory store.
FAST = ["embedding_model.default.backend=hash", "llm.default.backend=none", "vector_store.default.backend=memory"]
# A small session window, so that a few turns flush the oldest to long-term memory.
SMALL = [
    "op.short_term_memory_op.params.chat_history_token_ratio=0.5",
    "op.short_term_memory_op.params.token_flush_size=30",
]

# ``make_app(overrides)`` (conftest.py): an App, or a RemoteApp of a flowmem serve run with those overrides.
MakeApp = Callable[[Sequence[str]], Any]
